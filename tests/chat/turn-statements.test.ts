// What a simple chat turn costs the embedded database, statement by statement. With one process per data
// dir (PGlite's lock), leases live in memory and the chat's queue knows every event it waits on, so a turn
// sends no lease statement, knows its chat's thread (ThreadStore remembers it), lists the chat's inbox
// once, taking the turn's row in that same statement, and reads its thread's checkpoint once — the
// runner's read is the graph's (shared-reads.ts). Each of those was a statement of its own before.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { Actor, ChatRef } from '../../src/core/surface/index.ts';
import { startFakeLlm, type FakeLlm } from '../fakes/llm-server.ts';
import { startAssembled, type Assembled } from '../helpers/assembled.ts';
import { freshDatabase } from '../helpers/databases.ts';
import { watchPgliteStatements, type PgliteStatements } from '../helpers/pglite-statements.ts';
import { RecordingSurface } from '../helpers/recording-surface.ts';
import { eventually } from '../helpers/eventually.ts';

let llm: FakeLlm;
let k: Assembled;
let statements: PgliteStatements;
const surface = new RecordingSurface('telegram');
const chat: ChatRef = 'telegram:1000';
const actor: Actor = { platform: 'telegram', id: '1000' };

beforeAll(async () => {
  llm = await startFakeLlm();
  const database = await freshDatabase('pglite');
  statements = watchPgliteStatements(database.pglite!, { record: true });
  k = await startAssembled(
    { model: { name: 'fake-model', base_url: llm.baseURL, max_retries: 0 }, access: { users: [chat] } },
    { database },
  );
  k.kazma.core.attachSurface(surface);
});
afterAll(async () => {
  await k.close();
  await k.database.dispose();
  await llm.close();
});

async function turn(text: string): Promise<string[]> {
  const before = surface.sent.length;
  await k.settled();
  statements.take();
  await k.kazma.core.pipeline.handle({
    kind: 'message',
    eventId: randomUUID(),
    platform: 'telegram',
    chat,
    actor,
    text,
  });
  await eventually(
    () => surface.sent.length,
    (n) => n > before,
    'the reply',
  );
  await k.settled();
  return statements.take();
}

it('a simple turn on the embedded database: no lease statement, no read of the chat’s thread, one inbox listing that takes the row, one checkpoint read', async () => {
  await turn('warm up');
  const sent = await turn('hello');
  const matching = (pattern: RegExp) => sent.filter((text) => pattern.test(text)).length;
  expect(matching(/thread_leases/)).toBe(0);
  expect(matching(/from "chat_threads"/)).toBe(0);
  expect(
    matching(/^with "taken" as \(update "inbox" .* from "inbox" left join "taken" .* where \("inbox"\."chat" = /s),
  ).toBe(1);
  expect(matching(/^select .* from "inbox" where \("inbox"\."chat" = /)).toBe(0);
  expect(matching(/^update "inbox" set "state" = \$1, "attempts"/)).toBe(0);
  expect(matching(/^with cp as \(/)).toBe(1);
  expect(matching(/^WITH blobs AS \( INSERT INTO "langgraph"\.checkpoint_blobs/)).toBe(1);
  // Memory (on by default) looks once for notes to recall; with none, nothing more is asked.
  expect(matching(/^select "id" from "memories"/)).toBe(1);
  expect(surface.sent.at(-1)!.text).toContain('hello');
});
