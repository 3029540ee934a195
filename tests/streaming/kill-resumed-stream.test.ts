// kill -9 while the answer of a resumed turn streams: after an approval tap the turn goes on in a drive of
// its own, whose draft is recorded under the turn the checkpoint names. The next start goes on from the
// checkpoint (the approved call ran already), edits that draft to say it was interrupted, and the answer
// arrives once. Real processes, the compiled bundle, PostgreSQL.
import { expect, it } from 'vitest';
import { INTERRUPTED_TEXT } from '../../src/core/streaming/index.ts';
import { MAYA } from '../adapters/telegram/harness.ts';
import { startFakeTelegram } from '../fakes/telegram/index.ts';
import { eventually } from '../helpers/eventually.ts';
import { cleanupAfterEach, kazmaOnPostgres } from '../helpers/process-rig.ts';

const cleanup = cleanupAfterEach();

const GROUP = -1001000;
const ANSWER = Array.from({ length: 60 }, (_, i) => `word${i}`).join(' ');

it('killed while a resumed turn streams: its draft says it was interrupted, and the answer arrives once', {
  timeout: 240_000,
}, async () => {
  const fake = await startFakeTelegram();
  cleanup.push(() => fake.close());
  const { llm, start } = await kazmaOnPostgres(
    cleanup,
    `
access: { operators: [{ name: Maya, telegram: "${MAYA.id}" }], chats: ["telegram:${GROUP}"] }
telegram: { enabled: true, token: "${fake.token}", api_root: "${fake.apiRoot}", groups: all }
streaming: { start_after: 0ms, telegram: { edit_interval: 200ms } }
turns: { lease_ttl: 2s }
approvals: { lease_ttl: 2s }
runs: { sweep_interval: 2s }
`,
  );
  const first = start();
  await first.waitForLog((line) => line.msg === 'telegram started', 180_000);
  // The approved call runs, then the answer is written slowly (~18 s) and cut by the kill; the run taken
  // up again answers at once.
  llm.script(
    { toolCalls: [{ name: 'write_file', args: { path: 'note.txt', content: 'x' } }] },
    { text: ANSWER, pacing: { words: true, delayMs: 300 } },
    { text: ANSWER },
  );
  fake.sendUserMessage({ from: MAYA, chatId: GROUP, text: 'write the note, then tell me a long story' });
  const card = await eventually(
    () => fake.messages(GROUP),
    (ms) => ms.find((m) => m.reply_markup),
    'the approval card',
    { timeoutMs: 60_000 },
  );
  const once = card.reply_markup!.inline_keyboard.flat().find((b) => b.callback_data?.endsWith(':once'))!;
  fake.tapButton({ chatId: GROUP, messageId: card.message_id, from: MAYA, data: once.callback_data! });
  // The resumed drive's draft was posted and edited at least once: the model is mid-answer.
  const draftOf = () => fake.messages(GROUP).find((m) => m.message_id !== card.message_id);
  await eventually(
    () => fake.calls.of('editMessageText').filter((c) => c.ok && c.body.message_id === draftOf()?.message_id).length,
    (edits) => edits >= 1,
    'the draft edited once',
    { timeoutMs: 60_000 },
  );
  first.kill('SIGKILL');
  await first.exited;
  expect(fake.messages(GROUP)).toHaveLength(2);
  expect(draftOf()!.text.length).toBeLessThan(ANSWER.length);

  // The answer's messages: all but the card. Telegram hands the next start the tap again (its update was not
  // confirmed before the kill): the same attempt, whose decision landed, so nobody is told anything of it.
  const answer = () =>
    fake
      .messages(GROUP)
      .filter((m) => m.message_id !== card.message_id)
      .map((m) => m.text);
  const second = start();
  const texts = await eventually(
    answer,
    (shown) => (shown.length === 2 && shown[1] === ANSWER && shown[0] === INTERRUPTED_TEXT ? shown : undefined),
    'the interrupted notice and the recovered answer',
    { timeoutMs: 60_000 },
  );
  await new Promise((resolve) => setTimeout(resolve, 3000)); // a duplicate, or a second edit, would show now
  expect(answer()).toEqual(texts);
  expect(llm.attempts).toHaveLength(3); // the approved call was not run again: no model call asked for it twice
  second.kill('SIGTERM');
  await second.exited;
});
