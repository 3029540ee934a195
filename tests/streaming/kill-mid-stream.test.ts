// kill -9 while an answer streams into a Telegram group. The half-written message (the draft, posted
// then edited) was recorded once, when it was first posted; the next start takes the turn up again, edits
// that message to say it was interrupted, and the recovered answer arrives once: one interrupted notice,
// one answer, nothing else in the chat. Real processes, the compiled bundle, PostgreSQL.
import postgres from 'postgres';
import { expect, it } from 'vitest';
import { INTERRUPTED_TEXT } from '../../src/core/streaming/index.ts';
import { MAYA } from '../adapters/telegram/harness.ts';
import { startFakeTelegram } from '../fakes/telegram/index.ts';
import { eventually } from '../helpers/eventually.ts';
import { cleanupAfterEach, kazmaOnPostgres } from '../helpers/process-rig.ts';

const cleanup = cleanupAfterEach();

const GROUP = -1001000;
const ANSWER = Array.from({ length: 60 }, (_, i) => `word${i}`).join(' ');

it('killed mid-stream: the draft says it was interrupted, and the recovered answer arrives once', {
  timeout: 240_000,
}, async () => {
  const fake = await startFakeTelegram();
  cleanup.push(() => fake.close());
  const { llm, pg, start } = await kazmaOnPostgres(
    cleanup,
    `
access: { operators: [{ name: Maya, telegram: "${MAYA.id}" }], chats: ["telegram:${GROUP}"] }
telegram: { enabled: true, token: "${fake.token}", api_root: "${fake.apiRoot}", groups: all }
streaming: { start_after: 0ms, telegram: { edit_interval: 200ms } }
turns: { lease_ttl: 2s }
runs: { sweep_interval: 2s }
`,
  );
  const first = start();
  await first.waitForLog((line) => line.msg === 'telegram started', 180_000);
  // The first try writes slowly (~18 s), so it is cut by the kill; the turn taken up again answers at once.
  llm.script({ text: ANSWER, pacing: { words: true, delayMs: 300 } }, { text: ANSWER });
  fake.sendUserMessage({ from: MAYA, chatId: GROUP, text: 'tell me a long story' });
  // The draft was posted and edited at least once: the model is mid-answer.
  await eventually(
    () => fake.calls.of('editMessageText').filter((c) => c.ok).length,
    (edits) => edits >= 1,
    'the draft edited once',
    { timeoutMs: 60_000 },
  );
  first.kill('SIGKILL');
  await first.exited;
  const [draft] = fake.messages(GROUP);
  expect(fake.messages(GROUP)).toHaveLength(1);
  expect(draft!.text.length).toBeLessThan(ANSWER.length);

  const second = start();
  const texts = await eventually(
    () => fake.messages(GROUP).map((m) => m.text),
    (shown) => (shown.length === 2 && shown[1] === ANSWER && shown[0] === INTERRUPTED_TEXT ? shown : undefined),
    'the interrupted notice and the recovered answer',
    { timeoutMs: 60_000 },
  );
  await new Promise((resolve) => setTimeout(resolve, 3000)); // a duplicate, or a second edit, would show now
  expect(fake.messages(GROUP).map((m) => m.text)).toEqual(texts);
  const sql = postgres(pg.url, { max: 1, onnotice: () => {} });
  cleanup.push(() => sql.end());
  expect(await sql`select count(*)::int as n from run_incidents`).toEqual([{ n: 0 }]);
  second.kill('SIGTERM');
  await second.exited;
});
