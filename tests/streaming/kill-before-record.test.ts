// kill -9 between a draft's post and its record: Slack took the first post of a streamed answer, and the
// process died before it heard back. The draft's record was reserved before the post, under the key the
// post carries (its metadata), so the next start finds that message by its key, edits it to say it was
// interrupted, and the recovered answer arrives once: nothing half-written is left. Real processes, the
// compiled bundle, the embedded database.
import { expect, it } from 'vitest';
import { INTERRUPTED_TEXT } from '../../src/core/streaming/index.ts';
import { dmOf, MAYA } from '../adapters/slack/harness.ts';
import { startFakeSlack } from '../fakes/slack/index.ts';
import { eventually } from '../helpers/eventually.ts';
import { cleanupAfterEach, kazmaOnEmbedded } from '../helpers/process-rig.ts';

const cleanup = cleanupAfterEach();

const DM = dmOf(MAYA);
const ANSWER = Array.from({ length: 60 }, (_, i) => `word${i}`).join(' ');

it('killed after Slack took a draft and before it was recorded: the draft is found and says so', {
  timeout: 240_000,
}, async () => {
  const fake = await startFakeSlack();
  cleanup.push(() => fake.close());
  const { llm, start } = await kazmaOnEmbedded(
    cleanup,
    `
access: { welcome: false, operators: [{ name: Maya, slack: ${MAYA.id} }] }
slack: { enabled: true, token: "${fake.botToken}", signing_secret: "${fake.signingSecret}", api_url: "${fake.apiUrl}" }
streaming: { start_after: 0ms, slack: { edit_interval: 200ms } }
`,
  );
  const bot = () => fake.messages(DM).filter((m) => m.user === fake.identity.botUserId);
  const first = start();
  await first.waitForLog((line) => line.msg === 'slack started', 180_000);
  // The first try writes slowly, so the draft is posted mid-answer; the turn taken up again answers at once.
  llm.script({ text: ANSWER, pacing: { words: true, delayMs: 300 } }, { text: ANSWER });
  const held = fake.holdAnswer('chat.postMessage'); // Slack takes the draft; Kazma never hears back
  cleanup.push(() => held.release());
  await fake.signer.sendMessage(`http://127.0.0.1:${await first.port()}/slack/events`, {
    channel: DM,
    user: MAYA.id,
    text: 'tell me a long story',
  });
  await held.held;
  first.kill('SIGKILL');
  await first.exited;
  expect(bot()).toHaveLength(1);
  expect(bot()[0]!.text).not.toBe(ANSWER);

  const second = start();
  const texts = await eventually(
    () => bot().map((m) => m.text),
    (shown) => (shown.length === 2 && shown[1] === ANSWER && shown[0] === INTERRUPTED_TEXT ? shown : undefined),
    'the interrupted notice in the draft, and the recovered answer',
    { timeoutMs: 60_000 },
  );
  await new Promise((resolve) => setTimeout(resolve, 3000)); // a duplicate, or a second edit, would show now
  expect(bot().map((m) => m.text)).toEqual(texts);
  second.kill('SIGTERM');
  await second.exited;
});
