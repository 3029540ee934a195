// The sweep keeps a chat's checkpoints from piling up: after 30 turns the chat's thread holds its two
// newest checkpoints (one per turn before), and the conversation goes on whole — the model is still sent
// every earlier message.
import { randomUUID } from 'node:crypto';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { Actor, ChatRef } from '../../src/core/surface/index.ts';
import { startFakeLlm, type FakeLlm } from '../fakes/llm-server.ts';
import { startAssembled, type Assembled } from '../helpers/assembled.ts';
import { eventually } from '../helpers/eventually.ts';
import { RecordingSurface } from '../helpers/recording-surface.ts';

const chat: ChatRef = 'telegram:77';
const actor: Actor = { platform: 'telegram', id: '77' };
let llm: FakeLlm;
let k: Assembled;

beforeAll(async () => {
  llm = await startFakeLlm();
  k = await startAssembled({
    model: { name: 'fake-model', base_url: llm.baseURL, max_retries: 0 },
    access: { users: [chat] },
    runs: { sweep_interval: '1s' },
  });
  k.kazma.core.attachSurface(new RecordingSurface('telegram'));
});
afterAll(async () => {
  await k?.close();
  await llm?.close();
});

const checkpointsOf = async (thread: string) => {
  const result: unknown = await k.database.db.execute(
    sql`select count(*)::int as n from langgraph.checkpoints where thread_id = ${thread}`,
  );
  return ((Array.isArray(result) ? result : (result as { rows: unknown[] }).rows) as Array<{ n: number }>)[0]!.n;
};

it('prunes a long chat’s old checkpoints, and the chat goes on with its whole conversation', async () => {
  for (let i = 0; i < 30; i++) {
    await k.kazma.core.pipeline.handle({
      kind: 'message',
      eventId: randomUUID(),
      platform: 'telegram',
      chat,
      actor,
      text: `message ${i}`,
    });
    await k.settled();
  }
  const thread = await k.kazma.core.threads.current(chat);
  await eventually(
    () => checkpointsOf(thread),
    (n) => n === 2,
    'the sweep to prune the thread to its two newest checkpoints',
    { timeoutMs: 15_000 },
  );

  await k.kazma.core.pipeline.handle({
    kind: 'message',
    eventId: randomUUID(),
    platform: 'telegram',
    chat,
    actor,
    text: 'one more',
  });
  await k.settled();
  const sent = (llm.requests.at(-1)?.messages ?? []).map((m) => m.content);
  for (let i = 0; i < 30; i++) expect(sent).toContain(`message ${i}`);
  expect(sent.at(-1)).toBe('one more');
});
