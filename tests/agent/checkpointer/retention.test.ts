// Checkpoint retention: a thread keeps its newest checkpoints and every blob they reach — a delta's bases
// included, however deep its chain — and its pending writes (a question waiting for approval), and loses
// the rest. A thread someone runs is left for the next sweep. Each state is read back cold, by a saver that
// never held the thread, so nothing this process remembers stands in for a row that is gone.
import { sql } from 'drizzle-orm';
import { Command } from '@langchain/langgraph';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { CheckpointRetention } from '../../../src/core/agent/checkpoint/checkpoint-retention.ts';
import {
  CHECKPOINTER_SCHEMA,
  createCheckpointer,
  type Checkpointer,
} from '../../../src/core/agent/checkpoint/checkpointer.ts';
import { DELTA_TYPE } from '../../../src/core/agent/checkpoint/message-deltas.ts';
import { ThreadLeases } from '../../../src/core/turns/thread-lease.ts';
import { describeEachBackend, type FreshDatabase } from '../../helpers/databases.ts';
import { appendGraph, approvalGraph, texts } from './graphs.ts';

describeEachBackend('checkpoint retention', (db, kind) => {
  let saver: Checkpointer;
  let leases: ThreadLeases;
  const retention = (options: { keep?: number; pruneOver?: number } = {}) =>
    new CheckpointRetention({ pool: saver.pool, schema: CHECKPOINTER_SCHEMA, leases, owner: 'test', ...options });
  /** The thread's state as a saver that never saw it reads it. */
  const coldMessages = async (thread_id: string) => {
    const cold = await createCheckpointer(db());
    try {
      return texts((await appendGraph(cold.saver, 'turn').getState({ configurable: { thread_id } })).values.messages);
    } finally {
      await cold.close();
    }
  };

  beforeAll(async () => {
    saver = await createCheckpointer(db());
    leases = new ThreadLeases({ db: db().db, owner: 'test', solo: kind === 'pglite' });
  });
  afterAll(async () => {
    await saver.close();
  });

  it('keeps the newest checkpoints and the delta chain they stand on; the thread reads and goes on as before', async () => {
    const thread_id = `long-${kind}`;
    const graph = appendGraph(saver.saver, 'turn');
    // 45 turns: deltas past MAX_DELTA_DEPTH (20) start again from a whole blob, twice.
    for (let i = 0; i < 45; i++)
      await graph.invoke(
        { messages: [{ role: 'user', content: `message ${i}` }] },
        { configurable: { thread_id }, durability: 'sync' },
      );
    const before = await counts(db(), thread_id);
    const state = await coldMessages(thread_id);
    expect(before.checkpoints).toBeGreaterThan(45);
    expect(before.latestIsDelta).toBe(true); // so the read below needs the chain under it

    const run = await retention().run();

    const after = await counts(db(), thread_id);
    expect(run).toMatchObject({ threads: 1, checkpoints: before.checkpoints - 2, skipped: 0 });
    expect(after.checkpoints).toBe(2);
    expect(after.blobs).toBeLessThan(before.blobs / 2);
    expect(await coldMessages(thread_id)).toEqual(state);
    // The next turn, from this saver (which holds the conversation) and from a cold one.
    await graph.invoke({ messages: [{ role: 'user', content: 'after' }] }, { configurable: { thread_id } });
    expect((await coldMessages(thread_id)).slice(-2)).toEqual(['after', 'turn #91']);
    expect(await coldMessages(thread_id)).toHaveLength(state.length + 2);
  });

  it('leaves a thread with no more checkpoints than it prunes over as it is', async () => {
    const thread_id = `short-${kind}`;
    const graph = appendGraph(saver.saver, 'turn');
    for (let i = 0; i < 3; i++)
      await graph.invoke({ messages: [{ role: 'user', content: `m${i}` }] }, { configurable: { thread_id } });
    const before = await counts(db(), thread_id);
    await retention({ pruneOver: before.checkpoints }).run();
    expect(await counts(db(), thread_id)).toEqual(before);
  });

  it('keeps a waiting question: the thread resumes after a prune with the answer it is given', async () => {
    const thread_id = `question-${kind}`;
    const graph = approvalGraph(saver.saver);
    await graph.invoke(
      { messages: [{ role: 'user', content: 'clean up' }] },
      { configurable: { thread_id }, durability: 'sync' },
    );
    const run = await retention({ keep: 1, pruneOver: 1 }).run();
    expect(run.threads).toBeGreaterThanOrEqual(1);
    expect((await counts(db(), thread_id)).checkpoints).toBe(1);

    const cold = await createCheckpointer(db());
    try {
      const resumed = approvalGraph(cold.saver);
      expect((await resumed.getState({ configurable: { thread_id } })).tasks[0]?.interrupts).toHaveLength(1);
      const result = await resumed.invoke(new Command({ resume: { approved: true, by: 'amina' } }), {
        configurable: { thread_id },
      });
      expect(texts(result.messages)).toEqual(['clean up', 'approved=true by amina']);
    } finally {
      await cold.close();
    }
  });

  it('leaves a thread that someone runs for the next sweep', async () => {
    const thread_id = `busy-${kind}`;
    const graph = appendGraph(saver.saver, 'turn');
    for (let i = 0; i < 4; i++)
      await graph.invoke({ messages: [{ role: 'user', content: `m${i}` }] }, { configurable: { thread_id } });
    const before = await counts(db(), thread_id);
    const pruning = retention({ keep: 1, pruneOver: 1 });
    expect(await leases.acquire(thread_id, 'a turn')).toBe(true);
    expect(await pruning.pruneThread(thread_id)).toBeUndefined();
    expect(await counts(db(), thread_id)).toEqual(before);

    await leases.release(thread_id, 'a turn');
    expect(await pruning.pruneThread(thread_id)).toMatchObject({ checkpoints: before.checkpoints - 1 });
    // The lease was let go: a turn can take the thread.
    expect(await leases.acquire(thread_id, 'a turn')).toBe(true);
    await leases.release(thread_id, 'a turn');
  });

  it('is refused a setting that would delete every checkpoint', () => {
    expect(() => retention({ keep: 0 })).toThrow(/at least the latest/);
  });
});

/** The thread's rows, and whether its latest checkpoint's messages are a delta blob. */
async function counts(
  database: FreshDatabase,
  thread: string,
): Promise<{ checkpoints: number; blobs: number; writes: number; latestIsDelta: boolean }> {
  const result: unknown = await database.db.execute(sql`
    select (select count(*)::int from langgraph.checkpoints where thread_id = ${thread}) as checkpoints,
           (select count(*)::int from langgraph.checkpoint_blobs where thread_id = ${thread}) as blobs,
           (select count(*)::int from langgraph.checkpoint_writes where thread_id = ${thread}) as writes,
           coalesce((select b.type = ${DELTA_TYPE} from langgraph.checkpoints c
              join langgraph.checkpoint_blobs b on b.thread_id = c.thread_id and b.checkpoint_ns = c.checkpoint_ns
               and b.channel = 'messages' and b.version = c.checkpoint -> 'channel_versions' ->> 'messages'
              where c.thread_id = ${thread} order by c.checkpoint_id desc limit 1), false) as "latestIsDelta"`);
  return (
    (Array.isArray(result) ? result : (result as { rows: unknown[] }).rows) as Array<{
      checkpoints: number;
      blobs: number;
      writes: number;
      latestIsDelta: boolean;
    }>
  )[0]!;
}
