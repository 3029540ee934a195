// The batched saver writes what LangGraph's stock PostgresSaver writes, in one statement instead of one
// per row — except a conversation's later versions, written as deltas (message-deltas.ts): the same
// graphs run on both (on one database, different threads) leave the same history — every checkpoint's
// channel values, its pending writes (an interrupt among them) — read by this saver, by a saver that holds
// none of it (another process, a restart), and by the stock saver's own `list` run with this saver's
// serializer; a thread the stock saver wrote (a Kazma from before) is read and resumed by this one.
import { randomUUID } from 'node:crypto';
import { Command, INTERRUPT, type BaseCheckpointSaver, type Interrupt } from '@langchain/langgraph';
import { PostgresSaver } from '@langchain/langgraph-checkpoint-postgres';
import { createPgConfig } from '@electric-sql/pglite/node-postgres';
import pg from 'pg';
import { afterAll, beforeAll, expect, it } from 'vitest';
import {
  CHECKPOINTER_SCHEMA,
  createCheckpointer,
  type Checkpointer,
} from '../../../src/core/agent/checkpoint/checkpointer.ts';
import { BatchedPostgresSaver } from '../../../src/core/agent/checkpoint/batched-saver.ts';
import { describeEachBackend } from '../../helpers/databases.ts';
import { DELTA_TYPE } from '../../../src/core/agent/checkpoint/message-deltas.ts';
import { appendGraph, approvalGraph, texts } from './graphs.ts';

/** A thread's history as comparable data: per checkpoint, newest first, its values and pending writes. */
async function history(saver: BaseCheckpointSaver, thread_id: string) {
  const out: unknown[] = [];
  for await (const tuple of saver.list({ configurable: { thread_id } })) {
    out.push({
      step: tuple.metadata?.step,
      source: tuple.metadata?.source,
      values: JSON.parse(
        JSON.stringify(tuple.checkpoint.channel_values, (key, value) => (key === 'id' ? undefined : value)),
      ),
      // Writes come ordered by task id, and task ids differ between threads: compare them by channel.
      writes: (tuple.pendingWrites ?? [])
        .map(([, channel, value]) => [
          channel,
          channel === INTERRUPT
            ? (value as Interrupt[]).map((i) => i.value)
            : JSON.parse(JSON.stringify(value ?? null, (key, v) => (key === 'id' ? undefined : v))),
        ])
        .sort((x, y) => JSON.stringify(x).localeCompare(JSON.stringify(y))),
    });
  }
  return out;
}

/** Both graphs, to an interrupt and resumed, with every step durable. */
async function exercise(saver: BaseCheckpointSaver, thread_id: string) {
  const config = { configurable: { thread_id }, durability: 'sync' as const };
  await appendGraph(saver, 'a').invoke({ messages: [{ role: 'user', content: 'one' }] }, config);
  await appendGraph(saver, 'a').invoke({ messages: [{ role: 'user', content: 'two' }] }, config);
  const asked = await approvalGraph(saver).invoke({ messages: [{ role: 'user', content: 'clean up' }] }, config);
  const [question] = (asked as { [INTERRUPT]?: Interrupt[] })[INTERRUPT] ?? [];
  return approvalGraph(saver).invoke(
    new Command({ resume: { [question!.id!]: { approved: true, by: 'maya' } } }),
    config,
  );
}

describeEachBackend('the batched checkpoint saver', (db) => {
  let batched: Checkpointer;
  let stock: PostgresSaver;
  let pool: pg.Pool;
  beforeAll(async () => {
    batched = await createCheckpointer(db());
    // The stock saver on its own connection (on PGlite: the same session; these tests run one call at a time).
    pool = new pg.Pool(
      db().pglite ? { ...createPgConfig(db().pglite!), max: 1 } : { connectionString: db().url!, max: 2 },
    );
    stock = new PostgresSaver(pool, undefined, { schema: CHECKPOINTER_SCHEMA });
  });
  afterAll(async () => {
    await batched.close();
    await pool.end();
  });

  it('is what createCheckpointer gives Kazma', () => {
    expect(batched.saver).toBeInstanceOf(BatchedPostgresSaver);
  });

  it('leaves the same history as the stock saver, read by itself, by a saver that holds none of it, and by the stock list', async () => {
    const [ours, theirs] = [randomUUID(), randomUUID()];
    const done = await exercise(batched.saver, ours);
    await exercise(stock, theirs);
    expect(texts(done.messages)).toEqual(['one', 'a #1', 'two', 'a #3', 'clean up', 'approved=true by maya']);
    const [a, b] = [await history(batched.saver, ours), await history(stock, theirs)];
    expect(a.length).toBeGreaterThan(6);
    expect(a).toEqual(b);
    // The conversation's later versions went out as deltas, not whole.
    const { rows } = await pool.query<{ deltas: number }>(
      `select count(*)::int as deltas from ${CHECKPOINTER_SCHEMA}.checkpoint_blobs where thread_id = $1 and type = $2`,
      [ours, DELTA_TYPE],
    );
    expect(rows[0]!.deltas).toBeGreaterThan(0);
    for (const reader of ['batched', 'stock list'] as const) {
      // A new saver holds nothing: every delta's base is found in the database.
      const cold = await createCheckpointer(db());
      try {
        const saver =
          reader === 'batched'
            ? cold.saver
            : new PostgresSaver(pool, cold.saver.serde, { schema: CHECKPOINTER_SCHEMA });
        expect(await history(saver, ours)).toEqual(b);
      } finally {
        await cold.close();
      }
    }
    // A thread the stock saver wrote reads the same through this one (an upgrade from a Kazma before deltas).
    expect(await history(batched.saver, theirs)).toEqual(b);
  });

  it('reads each checkpoint — the latest and by id, values and pending writes — as the stock saver reads its own, and cold as warm', async () => {
    const written = async (saver: BaseCheckpointSaver) => {
      const thread_id = randomUUID();
      await exercise(saver, thread_id);
      const paused = randomUUID();
      await approvalGraph(saver).invoke(
        { messages: [{ role: 'user', content: 'clean up' }] },
        { configurable: { thread_id: paused } },
      );
      return [thread_id, paused];
    };
    const configsOf = async (saver: BaseCheckpointSaver, id: string) => {
      const configs = [{ configurable: { thread_id: id } }];
      for await (const tuple of saver.list({ configurable: { thread_id: id } })) configs.push(tuple.config as never);
      expect(configs.length).toBeGreaterThan(1);
      return configs;
    };
    for (const id of await written(stock)) {
      for (const config of await configsOf(stock, id))
        expect(await batched.saver.getTuple(config)).toEqual(await stock.getTuple(config));
    }
    const ours = await written(batched.saver);
    const cold = await createCheckpointer(db());
    try {
      for (const id of ours) {
        for (const config of await configsOf(batched.saver, id))
          expect(await cold.saver.getTuple(config)).toEqual(await batched.saver.getTuple(config));
      }
    } finally {
      await cold.close();
    }
    expect(
      (await batched.saver.getTuple({ configurable: { thread_id: ours[1]! } }))!.pendingWrites!.length,
    ).toBeGreaterThan(0);
    expect(await batched.saver.getTuple({ configurable: { thread_id: randomUUID() } })).toBeUndefined();
  });

  it('a thread the stock saver paused is resumed by the batched one', async () => {
    const thread_id = randomUUID();
    const asked = await approvalGraph(stock).invoke(
      { messages: [{ role: 'user', content: 'clean up' }] },
      { configurable: { thread_id } },
    );
    const [question] = (asked as { [INTERRUPT]?: Interrupt[] })[INTERRUPT] ?? [];
    const done = await approvalGraph(batched.saver).invoke(
      new Command({ resume: { [question!.id!]: { approved: false, by: 'ana' } } }),
      { configurable: { thread_id } },
    );
    expect(texts(done.messages)).toEqual(['clean up', 'approved=false by ana']);
  });

  it('of two writes at one special index keeps the latest, as the stock saver does', async () => {
    const thread_id = randomUUID();
    const config = await batched.saver.put(
      { configurable: { thread_id, checkpoint_ns: '' } },
      {
        v: 4,
        id: randomUUID(),
        ts: new Date().toISOString(),
        channel_values: {},
        channel_versions: {},
        versions_seen: {},
      },
      { source: 'input', step: -1, parents: {} },
      {},
    );
    await batched.saver.putWrites(
      config,
      [
        ['__error__', 'first'],
        ['__error__', 'second'],
      ],
      'task-1',
    );
    await batched.saver.putWrites(
      config,
      [
        ['x', 1],
        ['y', 2],
      ],
      'task-2',
    );
    const tuple = await stock.getTuple(config);
    expect(tuple!.pendingWrites!.map(([task, channel, value]) => [task, channel, value]).sort()).toEqual([
      ['task-1', '__error__', 'second'],
      ['task-2', 'x', 1],
      ['task-2', 'y', 2],
    ]);
  });
});
