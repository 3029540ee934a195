// On PostgreSQL the statement that takes a chat's lease and its next row also takes the lease of the
// chat's current thread when the row is a turn, handed to the row's run as a value (AheadLease): a
// message's turn holds it without a statement of its own. Nothing that runs a row may wait for such a
// lease, and a row whose run does not claim it must let it go: with `turns.lease_ttl` at ten minutes here, a lease nobody used or let
// go would hold up the chat's next turn past the test's timeout.
import { randomUUID } from 'node:crypto';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { Actor, ChatRef } from '../../src/core/surface/index.ts';
import { startFakeLlm, type FakeLlm } from '../fakes/llm-server.ts';
import { startAssembled, type Assembled } from '../helpers/assembled.ts';
import { freshDatabase, type FreshDatabase } from '../helpers/databases.ts';
import { eventually } from '../helpers/eventually.ts';
import { RecordingSurface } from '../helpers/recording-surface.ts';

let llm: FakeLlm;
let k: Assembled;
let database: FreshDatabase;
const surface = new RecordingSurface('telegram');
const chat: ChatRef = 'telegram:2000';
const maya: Actor = { platform: 'telegram', id: '2000' };

beforeAll(async () => {
  llm = await startFakeLlm();
  database = await freshDatabase('postgres');
  k = await startAssembled(
    {
      model: { name: 'fake-model', base_url: llm.baseURL, max_retries: 0 },
      access: { operators: [{ name: 'maya', telegram: maya.id }] },
      turns: { lease_ttl: '10m' },
    },
    { database },
  );
  k.kazma.core.attachSurface(surface);
});
afterAll(async () => {
  await k.close();
  await database.dispose();
  await llm.close();
});

/** Handles one message and waits for its answer; returns the answer's text. */
async function say(text: string): Promise<string> {
  const before = surface.sent.length;
  await k.kazma.core.pipeline.handle({
    kind: 'message',
    eventId: randomUUID(),
    platform: 'telegram',
    chat,
    actor: maya,
    text,
  });
  await eventually(
    () => surface.sent.length,
    (n) => n > before,
    `the answer to "${text}"`,
  );
  await k.settled();
  return surface.sent.at(-1)!.text;
}

const heldLeases = async () =>
  (
    (await database.db.execute(sql`select thread_id from thread_leases`)) as unknown as Array<{ thread_id: string }>
  ).map((row) => row.thread_id);

it('a message’s turn runs on the thread lease taken with its row, and the row’s end lets it go', {
  timeout: 30_000,
}, async () => {
  // While the model answers, the thread's lease is the one taken with the row: its holder is named after
  // the row (a lease the turn took by a statement of its own would have a holder of its own).
  const model = llm.holdNext(1);
  const eventId = randomUUID();
  const handled = k.kazma.core.pipeline.handle({
    kind: 'message',
    eventId,
    platform: 'telegram',
    chat,
    actor: maya,
    text: 'hello',
  });
  await eventually(
    () => llm.attempts.filter((a) => a.outcome === 'held').length,
    (n) => n === 1,
    'the turn’s model call',
  );
  const owners = (await database.db.execute(
    sql`select thread_id, owner from thread_leases where thread_id not like 'inbox:%'`,
  )) as unknown as Array<{ thread_id: string; owner: string }>;
  model.release();
  await handled;
  expect(owners).toEqual([
    { thread_id: `${chat}#0`, owner: expect.stringMatching(new RegExp(`/row:telegram:${eventId}$`)) },
  ]);
  await eventually(
    () => surface.sent.length,
    (n) => n > 0,
    'the answer to "hello"',
  );
  await k.settled();
  expect(surface.sent.at(-1)!.text).toContain('hello');
  expect(await heldLeases()).toEqual([]);
  expect(await say('again')).toContain('again');
  expect(await heldLeases()).toEqual([]);
});

it('/compact, which takes the thread’s lease by the thread’s id, never waits for a lease taken with its row', {
  timeout: 30_000,
}, async () => {
  for (const word of ['apples', 'pears', 'plums']) await say(word);
  llm.script({ text: 'SUMMARY: apples and pears.' });
  expect(await say('/compact')).toMatch(/^Compacted \d+ messages into a summary/);
  expect(await heldLeases()).toEqual([]);
  expect(await say('and figs')).toContain('and figs');
});

it('a command that takes no thread lease (/new, /help) leaves none held after the row’s end', {
  timeout: 30_000,
}, async () => {
  for (const command of ['/help', '/new']) {
    await say(command);
    expect(await heldLeases()).toEqual([]);
  }
  expect(await say('after the commands')).toContain('after the commands');
  expect(await heldLeases()).toEqual([]);
});
