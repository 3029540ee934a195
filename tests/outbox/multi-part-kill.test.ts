// A long reply goes out as several Telegram messages. The process is killed (SIGKILL) on PostgreSQL
// while a later part is on its way, before Telegram acted on it. Before, the reply's row stayed
// "sending" until the recovery's five-minute wait called it "delivery unknown", and the rest of the reply
// came only after an incident and a person's Retry. Now the next start takes the turn up again (its
// lease lapsed) and the reply goes on after the parts Telegram took: every part once, in order, no
// incident and no person.
import postgres from 'postgres';
import { expect, it } from 'vitest';
import { longReply } from '../contract/support.ts';
import { MAYA } from '../adapters/telegram/harness.ts';
import { startFakeTelegram } from '../fakes/telegram/index.ts';
import { eventually } from '../helpers/eventually.ts';
import { cleanupAfterEach, kazmaOnPostgres } from '../helpers/process-rig.ts';

const cleanup = cleanupAfterEach();

it('killed mid long reply on PostgreSQL: the next start sends the rest, each part once, in order', {
  timeout: 240_000,
}, async () => {
  const fake = await startFakeTelegram();
  cleanup.push(() => fake.close());
  const { llm, pg, start } = await kazmaOnPostgres(
    cleanup,
    `
access: { operators: [{ name: Maya, telegram: "${MAYA.id}" }] }
telegram: { enabled: true, token: "${fake.token}", api_root: "${fake.apiRoot}" }
turns: { lease_ttl: 2s }
runs: { sweep_interval: 2s }
`,
  );
  const reply = longReply(4096);
  const first = start();
  await first.waitForLog((line) => line.msg === 'telegram started', 180_000);
  llm.script({ text: reply.markdown });
  // The first part goes through; the second is held before Telegram acts on it, and the process dies.
  const hold = fake.holdNext('sendMessage', { after: 1 });
  fake.sendUserMessage({ from: MAYA, chatId: MAYA.id, text: 'tell me a long story' });
  await hold.held;
  first.kill('SIGKILL');
  await first.exited;
  // The fake may see the exit before the closed connection: released before that, it would carry out a
  // call its caller never saw answered (a send Telegram took that the process never recorded).
  await hold.dropped;
  hold.release();
  expect(fake.messages(MAYA.id)).toHaveLength(1);

  const second = start();
  const texts = await eventually(
    () => fake.messages(MAYA.id).map((m) => m.text),
    (shown) => (shown.some((t) => t.includes(reply.lastLine)) ? shown : undefined),
    'the rest of the reply',
    { timeoutMs: 60_000 },
  );
  await new Promise((resolve) => setTimeout(resolve, 3000)); // a duplicate, or an incident, would show now
  expect(fake.messages(MAYA.id).map((m) => m.text)).toEqual(texts);
  expect(texts.length).toBeGreaterThanOrEqual(3);
  expect(texts.flatMap((t) => t.split('\n')).filter((line) => line !== '')).toEqual(reply.lines);
  const sql = postgres(pg.url, { max: 1, onnotice: () => {} });
  cleanup.push(() => sql.end());
  expect(await sql`select kind, state from outbox`).toEqual([{ kind: 'message', state: 'sent' }]);
  expect(await sql`select count(*)::int as n from run_incidents`).toEqual([{ n: 0 }]);
  second.kill('SIGTERM');
  await second.exited;
});
