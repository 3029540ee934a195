// What a simple chat turn costs PostgreSQL, statement by statement (several processes may share it, so the
// chat's and the thread's leases are rows). The row a turn ran ends in the chat's last listing, the one
// that lets the chat's lease go: the inbox's "finish" was a statement of its own just before it. The
// chat's current thread is read by the statement that takes the thread's lease (it was read on its own),
// and that lease is let go by the listing too (it was a statement of its own), and so is the reply recorded
// as sent (it was a statement of its own after the send). The row itself is taken by the statement that
// takes the chat's lease (it was taken on its own just after), and so is the lease of the chat's current
// thread, kept for the turn that runs the row (it was a statement of its own, reading the chat's thread).
import { randomUUID } from 'node:crypto';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { Actor, ChatRef } from '../../src/core/surface/index.ts';
import { startFakeLlm, type FakeLlm } from '../fakes/llm-server.ts';
import { startAssembled, type Assembled } from '../helpers/assembled.ts';
import { eventually } from '../helpers/eventually.ts';
import { statementTap } from '../helpers/pg-wire-tap.ts';
import { RecordingSurface } from '../helpers/recording-surface.ts';
import { proxiedPostgres } from '../helpers/tcp-proxy.ts';
import type { FreshDatabase } from '../helpers/databases.ts';

let llm: FakeLlm;
let k: Assembled;
let database: FreshDatabase;
const seen: string[] = [];
const surface = new RecordingSurface('telegram');
const chat: ChatRef = 'telegram:1000';
const actor: Actor = { platform: 'telegram', id: '1000' };

beforeAll(async () => {
  llm = await startFakeLlm();
  ({ database } = await proxiedPostgres({ tap: statementTap((text) => void seen.push(text)) }));
  k = await startAssembled(
    { model: { name: 'fake-model', base_url: llm.baseURL, max_retries: 0 }, access: { users: [chat] } },
    { database },
  );
  k.kazma.core.attachSurface(surface);
});
afterAll(async () => {
  await k.close();
  await database.dispose();
  await llm.close();
});

/** One turn: its statements, and its inbox row as it stood when `handle` resolved. */
async function turn(text: string) {
  const before = surface.sent.length;
  await k.settled();
  seen.length = 0;
  const eventId = randomUUID();
  await k.kazma.core.pipeline.handle({ kind: 'message', eventId, platform: 'telegram', chat, actor, text });
  const statements = [...seen];
  const row = await k.kazma.core.inbox.get({ platform: 'telegram', eventId });
  const leases = await database.db.execute(sql`select thread_id from thread_leases`);
  await eventually(
    () => surface.sent.length,
    (n) => n > before,
    'the reply',
  );
  await k.settled();
  return { statements, row, leases: [...(leases as unknown as unknown[])] };
}

/** A turn's own statements, by what they do; the rest (sweeps, polls running meanwhile) are not the turn's. */
const TURN_STATEMENTS: Array<[string, RegExp]> = [
  ['record', /^insert into "inbox"/],
  [
    'chat lease, listing, take, thread lease',
    /^with "lease" as \(insert into "thread_leases".*"taken" as \(update "inbox" set "state".*"ahead" as \(insert into "thread_leases" .* coalesce\(\(select "chat_threads"\."generation"/s,
  ],
  ['checkpoint read', /^with cp as \(/],
  // Memory (on by default) looks once per turn for notes to recall; with none, nothing more is asked.
  ['memory: any notes to recall', /^select "id" from "memories"/],
  ['checkpoint write', /^WITH blobs AS \( INSERT INTO "langgraph"\.checkpoint_blobs/],
  ['reply', /^insert into "outbox"/],
  ['end, listing, both leases', /^with "ended" as \(update "inbox" set "state"/],
];

it('a simple turn on PostgreSQL: 7 statements — memory’s one look for notes, its row and its thread’s lease are taken with the chat’s lease, it ends, and its reply is recorded sent, in the listing that lets both leases go', async () => {
  await turn('warm up');
  const { statements, row, leases } = await turn('hello');
  const matching = (pattern: RegExp) => statements.filter((text) => pattern.test(text)).length;
  // Ended by the time its waiter is told.
  expect(row?.state).toBe('done');
  expect(row?.finishedAt).not.toBeNull();
  // What each was before: a finish, a read of the chat's thread, the thread's lease taken and let go, the reply's own "sent".
  expect(matching(/^update "inbox" set "state" = \$1, "last_error"/)).toBe(0);
  expect(matching(/^update "outbox" set "state"/)).toBe(0);
  const [reply] = (await database.db.execute(
    sql`select state, message_ref from outbox where id like 'reply_%' order by seq desc limit 1`,
  )) as unknown as Array<{ state: string; message_ref: unknown }>;
  expect(reply).toMatchObject({ state: 'sent', message_ref: expect.anything() });
  expect(matching(/^select "generation" from "chat_threads"/)).toBe(0);
  expect(matching(/^update "inbox" set "state" = \$1, "attempts"/)).toBe(0);
  expect(matching(/^delete from "thread_leases"/)).toBe(0);
  expect(matching(/^with lease as \(insert into "thread_leases"/)).toBe(0);
  // Both leases, the chat's and its thread's, were let go by then.
  expect(leases).toEqual([]);
  const labels = statements
    .map((text) => TURN_STATEMENTS.find(([, pattern]) => pattern.test(text.replace(/\s+/g, ' ')))?.[0])
    .filter((label) => label !== undefined);
  expect(labels).toEqual(TURN_STATEMENTS.map(([label]) => label));
  // Nothing else touched the turn's tables but what runs on a timer: the inbox's heartbeat and sweep, and
  // the checkpoints' sweep looking for threads to prune.
  const turnTables = /"inbox"|thread_leases|chat_threads|"langgraph"\.|"memories"/;
  const timed =
    /^update "inbox" set "updated_at" = now\(\)|^select .* from "inbox" where \("inbox"\."state" in|^delete from "inbox"|^select thread_id from "langgraph"\.checkpoints group by/s;
  const others = statements.filter(
    (text) =>
      turnTables.test(text) &&
      !timed.test(text) &&
      !TURN_STATEMENTS.some(([, pattern]) => pattern.test(text.replace(/\s+/g, ' '))),
  );
  expect(others).toEqual([]);
  expect(surface.sent.at(-1)!.text).toContain('hello');
});
