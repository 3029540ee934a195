// What a simple chat turn costs PostgreSQL, statement by statement (several processes may share it, so the
// chat's and the thread's leases are rows). The row a turn ran ends in the chat's last listing, the one
// that lets the chat's lease go: the inbox's "finish" was a statement of its own just before it. The
// chat's current thread is read by the statement that takes the thread's lease: it was read on its own.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { Actor, ChatRef } from '../../src/core/chat/index.ts';
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
  k = await startAssembled({ model: { name: 'fake-model', base_url: llm.baseURL, max_retries: 0 }, access: { users: [chat] } }, { database });
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
  await eventually(() => surface.sent.length, (n) => n > before, 'the reply');
  await k.settled();
  return { statements, row };
}

it('a simple turn on PostgreSQL ends its inbox row in the listing that lets the chat go, and reads its thread with the thread’s lease', async () => {
  await turn('warm up');
  const { statements, row } = await turn('hello');
  const matching = (pattern: RegExp) => statements.filter((text) => pattern.test(text)).length;
  // Ended by the time its waiter is told.
  expect(row?.state).toBe('done');
  expect(row?.finishedAt).not.toBeNull();
  expect(matching(/^update "inbox" set "state" = \$1, "last_error"/)).toBe(0);
  expect(matching(/^with "ended" as \(update "inbox" set "state"/)).toBe(1);
  expect(matching(/^select "generation" from "chat_threads"/)).toBe(0);
  expect(matching(/^with lease as \(insert into "thread_leases" .* coalesce\(\(select "chat_threads"\."generation"/s)).toBe(1);
  // Recorded; the chat's lease with its listing; taken; the thread's lease with the chat's thread; its
  // checkpoint read and written; the reply's outbox row, and its "sent"; the thread's lease let go; ended
  // with the chat's last listing.
  expect(statements).toHaveLength(10);
  expect(surface.sent.at(-1)!.text).toContain('hello');
});
