// `/stop` received by one process while another runs the chat's turn: two `kazma start` on one PostgreSQL,
// Slack in HTTP mode (the fake's signer posts the question to A and `/stop` to B). B finds the thread's
// lease held by A and asks A (LISTEN/NOTIFY); A closes the model's connection and ends the turn as a local
// /stop does: the partial stays with "⏹ Stopped." appended, said once; B says nothing of its own.
import { expect, it } from 'vitest';
import { dmOf, MAYA } from '../adapters/slack/harness.ts';
import { startFakeSlack } from '../fakes/slack/index.ts';
import { eventually } from '../helpers/eventually.ts';
import { cleanupAfterEach, kazmaOnPostgres } from '../helpers/process-rig.ts';

const cleanup = cleanupAfterEach();

const DM = dmOf(MAYA);
const ANSWER = Array.from({ length: 60 }, (_, i) => `word${i}`).join(' ');

it('/stop in process B ends the turn process A runs, within 2 s, said once', { timeout: 240_000 }, async () => {
  const fake = await startFakeSlack();
  cleanup.push(() => fake.close());
  const { llm, start: spawn } = await kazmaOnPostgres(
    cleanup,
    `
access: { welcome: false, operators: [{ name: Maya, slack: ${MAYA.id} }] }
slack: { enabled: true, token: "${fake.botToken}", signing_secret: "${fake.signingSecret}", api_url: "${fake.apiUrl}" }
streaming: { start_after: 0ms, slack: { edit_interval: 200ms } }
`,
  );
  const start = async () => {
    const kazma = spawn();
    await kazma.waitForLog((line) => line.msg === 'slack started', 180_000);
    return { kazma, url: `http://127.0.0.1:${await kazma.port()}/slack/events` };
  };
  const a = await start();
  const b = await start();
  const bot = () => fake.messages(DM).filter((m) => m.user === fake.identity.botUserId);

  llm.script({ text: ANSWER, pacing: { words: true, delayMs: 300 } });
  await fake.signer.sendMessage(a.url, { channel: DM, user: MAYA.id, text: 'tell me a long story' });
  await eventually(bot, (messages) => messages.length === 1 && messages[0]!.edits.length >= 1, 'the draft, edited');
  const stoppedAt = Date.now();
  await fake.signer.sendMessage(b.url, { channel: DM, user: MAYA.id, text: '/stop' });
  const closedAt = await eventually(
    () => llm.attempts[0]!.closedAt,
    (closed) => closed,
    'the model connection closed',
  );
  expect(closedAt - stoppedAt).toBeLessThan(2000);
  const texts = await eventually(
    () => bot().map((m) => m.text),
    (shown) => (shown.some((text) => text.endsWith('⏹ Stopped.')) ? shown : undefined),
    'the stopped notice',
  );
  expect(texts).toHaveLength(1);
  expect(texts[0]).toMatch(/^word0 .*\n\n⏹ Stopped\.$/s);
  expect(llm.attempts).toHaveLength(1);
  for (const p of [a, b]) {
    p.kazma.kill('SIGTERM');
    await p.kazma.exited;
  }
  expect(bot().map((m) => m.text)).toEqual(texts); // nothing more came, from either process
});
