// A turn's runner and its graph read the thread's latest checkpoint once between them (shared-reads.ts):
// inside a `share` scope a second read costs no statement and returns the same state, a write in between
// makes the next read go to the database again, readers never see each other's changes, and nothing is
// kept outside a scope or for a checkpoint with pending writes.
import { randomUUID } from 'node:crypto';
import { createPgConfig } from '@electric-sql/pglite/node-postgres';
import { INTERRUPT, type Interrupt } from '@langchain/langgraph';
import pg from 'pg';
import { afterAll, beforeAll, beforeEach, expect, it } from 'vitest';
import { BatchedPostgresSaver } from '../../../src/core/agent/checkpoint/batched-saver.ts';
import { CHECKPOINTER_SCHEMA } from '../../../src/core/agent/checkpoint/checkpointer.ts';
import { describeEachBackend } from '../../helpers/databases.ts';
import { appendGraph, approvalGraph, texts } from './graphs.ts';

describeEachBackend('shared reads of a thread’s latest checkpoint', (db) => {
  let pool: pg.Pool;
  let saver: BatchedPostgresSaver;
  let reads = 0;
  beforeAll(() => {
    pool = new pg.Pool(
      db().pglite ? { ...createPgConfig(db().pglite!), max: 1 } : { connectionString: db().url!, max: 2 },
    );
    // Counts the checkpoint reads that reach the database (the saver reads through pool.query).
    const query = pool.query.bind(pool) as (text: string | pg.QueryConfig, values?: unknown[]) => Promise<unknown>;
    (pool as unknown as { query: typeof query }).query = (text, values) => {
      if (/^\s*with cp as \(/i.test(typeof text === 'string' ? text : text.text)) reads++;
      return query(text, values);
    };
    saver = new BatchedPostgresSaver(pool, CHECKPOINTER_SCHEMA, { prepared: !db().pglite });
  });
  afterAll(() => pool.end());
  beforeEach(() => {
    reads = 0;
  });

  const latest = (thread_id: string) => saver.getTuple({ configurable: { thread_id } });

  it('inside a scope the second read is the first one’s, without a statement', async () => {
    const thread_id = randomUUID();
    await appendGraph(saver, 'a').invoke(
      { messages: [{ role: 'user', content: 'one' }] },
      { configurable: { thread_id } },
    );
    reads = 0;
    const [first, second] = await saver.reads.share(thread_id, async () => [
      await latest(thread_id),
      await latest(thread_id),
    ]);
    expect(reads).toBe(1);
    expect(second!.checkpoint).toEqual(first!.checkpoint);
    expect(second!.checkpoint).not.toBe(first!.checkpoint);
  });

  it('a turn run inside the scope reads its checkpoint once, and its write makes the next read fresh', async () => {
    const thread_id = randomUUID();
    const graph = appendGraph(saver, 'a');
    await graph.invoke({ messages: [{ role: 'user', content: 'one' }] }, { configurable: { thread_id } });
    reads = 0;
    const after = await saver.reads.share(thread_id, async () => {
      await graph.getState({ configurable: { thread_id } });
      await graph.invoke({ messages: [{ role: 'user', content: 'two' }] }, { configurable: { thread_id } });
      return graph.getState({ configurable: { thread_id } });
    });
    // getState, then the invoke's own read (shared), then getState after the invoke's write (fresh).
    expect(reads).toBe(2);
    expect(texts(after.values.messages)).toEqual(['one', 'a #1', 'two', 'a #3']);
  });

  it('one reader’s changes to what it read never reach the next reader', async () => {
    const thread_id = randomUUID();
    await appendGraph(saver, 'a').invoke(
      { messages: [{ role: 'user', content: 'one' }] },
      { configurable: { thread_id } },
    );
    await saver.reads.share(thread_id, async () => {
      const first = (await latest(thread_id))!;
      first.checkpoint.channel_versions.messages = 'changed';
      first.checkpoint.versions_seen.append = { changed: 1 };
      delete first.checkpoint.channel_values.messages;
      const second = (await latest(thread_id))!;
      expect(second.checkpoint.channel_versions.messages).not.toBe('changed');
      expect(second.checkpoint.versions_seen.append).not.toEqual({ changed: 1 });
      expect(texts(second.checkpoint.channel_values.messages as never)).toEqual(['one', 'a #1']);
    });
  });

  it('keeps nothing outside a scope, after the scope ends, or for a checkpoint with pending writes', async () => {
    const thread_id = randomUUID();
    await appendGraph(saver, 'a').invoke(
      { messages: [{ role: 'user', content: 'one' }] },
      { configurable: { thread_id } },
    );
    reads = 0;
    await latest(thread_id);
    await latest(thread_id);
    expect(reads).toBe(2);
    await saver.reads.share(thread_id, () => latest(thread_id));
    await latest(thread_id);
    expect(reads).toBe(4);

    const paused = randomUUID();
    const asked = await approvalGraph(saver).invoke(
      { messages: [{ role: 'user', content: 'clean up' }] },
      { configurable: { thread_id: paused } },
    );
    expect((asked as { [INTERRUPT]?: Interrupt[] })[INTERRUPT]).toHaveLength(1);
    reads = 0;
    await saver.reads.share(paused, async () => {
      expect((await latest(paused))!.pendingWrites!.length).toBeGreaterThan(0);
      await latest(paused);
    });
    expect(reads).toBe(2);
  });

  it('a read that raced a write to the thread is not kept', async () => {
    const thread_id = randomUUID();
    const graph = appendGraph(saver, 'a');
    await graph.invoke({ messages: [{ role: 'user', content: 'one' }] }, { configurable: { thread_id } });
    await saver.reads.share(thread_id, async () => {
      const reading = latest(thread_id);
      saver.reads.written(thread_id); // as put() does, while the read is on its way
      await reading;
      reads = 0;
      await latest(thread_id);
      expect(reads).toBe(1);
    });
  });
});
