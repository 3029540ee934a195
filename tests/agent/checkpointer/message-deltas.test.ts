// A conversation's later versions are written as deltas on the version before (message-deltas.ts,
// delta-blobs.ts), so a turn no longer writes its whole context window again: a delta holds only what the
// turn added and which old messages left the window, a whole value cuts every chain, and whoever reads it —
// the writer, another process, a restart — gets exactly the conversation; a missing base is an error,
// never an empty conversation.
import { randomUUID } from 'node:crypto';
import { AIMessage, HumanMessage, RemoveMessage, type BaseMessage } from '@langchain/core/messages';
import { END, MessagesAnnotation, START, StateGraph, type BaseCheckpointSaver } from '@langchain/langgraph';
import { createPgConfig } from '@electric-sql/pglite/node-postgres';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  CHECKPOINTER_SCHEMA,
  createCheckpointer,
  type Checkpointer,
} from '../../../src/core/agent/checkpoint/checkpointer.ts';
import {
  applyDelta,
  DELTA_TYPE,
  diffMessages,
  MAX_DELTA_DEPTH,
} from '../../../src/core/agent/checkpoint/message-deltas.ts';
import { describeEachBackend } from '../../helpers/databases.ts';
import { appendGraph, texts } from './graphs.ts';

describe('a delta between two message lists', () => {
  const m = (text: string) => new HumanMessage({ content: text, id: `id-${text}` });
  const [a, b, c, d, e] = ['a', 'b', 'c', 'd', 'e'].map(m) as [
    BaseMessage,
    BaseMessage,
    BaseMessage,
    BaseMessage,
    BaseMessage,
  ];

  it('says which old messages went and which new ones came, and applying it gives the new list back', () => {
    const cases: Array<[BaseMessage[], BaseMessage[], number[], BaseMessage[]]> = [
      [[a, b], [a, b, c], [], [c]], // a turn added one
      [
        [a, b, c],
        [c, d, e],
        [0, 1],
        [d, e],
      ], // the window let the oldest go
      [[a, b, c, d], [a, c, d, e], [1], [e]], // one removed from the middle (a notice)
      [[a, b], [], [0, 1], []],
    ];
    for (const [prev, next, removed, appended] of cases) {
      const diff = diffMessages(prev, next)!;
      expect(diff).toEqual({ removed, appended });
      expect(applyDelta(prev, diff.removed, diff.appended)).toEqual(next);
    }
  });

  it('the last message replaced by one with its id is a removal and an addition; a moved or replaced older one makes no delta', () => {
    const newC = new HumanMessage({ content: 'c, edited', id: 'id-c' });
    const diff = diffMessages([a, b, c], [a, b, newC])!;
    expect(diff).toEqual({ removed: [2], appended: [newC] });
    expect(applyDelta([a, b, c], diff.removed, diff.appended)).toEqual([a, b, newC]);
    // Written whole instead (the saver falls back to the stock blob).
    expect(diffMessages([a, b, c], [a, new HumanMessage({ content: 'b, edited', id: 'id-b' }), c])).toBeUndefined();
    expect(diffMessages([a, b, c], [b, a, c])).toBeUndefined();
    expect(diffMessages([a, b], [a, b, a])).toBeUndefined();
  });
});

/** One node that adds a user message and a reply, then lets the oldest go beyond `keep` (a context window). */
function windowGraph(saver: BaseCheckpointSaver, keep: number) {
  return new StateGraph(MessagesAnnotation)
    .addNode('reply', (state) => {
      const reply = new AIMessage({ content: `reply #${state.messages.length}`, id: `ai-${randomUUID()}` });
      const over = state.messages.length + 1 - keep;
      return {
        messages: [
          ...state.messages.slice(0, Math.max(0, over)).map((old) => new RemoveMessage({ id: old.id! })),
          reply,
        ],
      };
    })
    .addEdge(START, 'reply')
    .addEdge('reply', END)
    .compile({ checkpointer: saver });
}

describeEachBackend('a conversation written as deltas', (db) => {
  let writer: Checkpointer;
  /** Raw reads and edits of the blob rows (on PGlite the same session; these tests run one call at a time). */
  let pool: pg.Pool;
  beforeAll(async () => {
    writer = await createCheckpointer(db());
    pool = new pg.Pool(
      db().pglite ? { ...createPgConfig(db().pglite!), max: 1 } : { connectionString: db().url!, max: 2 },
    );
  });
  afterAll(async () => {
    await writer.close();
    await pool.end();
  });

  const say = (saver: BaseCheckpointSaver, thread_id: string, i: number) =>
    windowGraph(saver, 12).invoke(
      { messages: [new HumanMessage({ content: `message ${i} ${'x'.repeat(200)}`, id: `human-${randomUUID()}` })] },
      { configurable: { thread_id } },
    );
  const blobsOf = async (thread_id: string) => {
    const { rows } = await pool.query<{ version: string; type: string; size: number }>(
      `select version, type, length(blob) as size from ${CHECKPOINTER_SCHEMA}.checkpoint_blobs where thread_id = $1 and channel = 'messages' order by version::int`,
      [thread_id],
    );
    return rows;
  };
  /** `use` with the saver of another process, which holds nothing of any thread yet. */
  const inNewProcess = async <T>(use: (saver: BaseCheckpointSaver) => Promise<T>): Promise<T> => {
    const other = await createCheckpointer(db());
    try {
      return await use(other.saver);
    } finally {
      await other.close();
    }
  };
  const messagesOf = async (saver: BaseCheckpointSaver, thread_id: string, checkpoint_id?: string) =>
    texts(
      (await saver.getTuple({ configurable: { thread_id, ...(checkpoint_id && { checkpoint_id }) } }))!.checkpoint
        .channel_values.messages as BaseMessage[],
    );

  it('writes a turn as what it changed, cuts each chain with a whole value, and reads back the same anywhere', async () => {
    const thread_id = randomUUID();
    for (let i = 0; i < 2 * MAX_DELTA_DEPTH + 5; i++) await say(writer.saver, thread_id, i);
    const blobs = await blobsOf(thread_id);
    let depth = 0;
    for (const blob of blobs) {
      depth = blob.type === DELTA_TYPE ? depth + 1 : 0;
      expect(depth).toBeLessThanOrEqual(MAX_DELTA_DEPTH);
    }
    const whole = blobs.filter((blob) => blob.type !== DELTA_TYPE);
    const deltas = blobs.filter((blob) => blob.type === DELTA_TYPE);
    // Every chain but the one still growing is as long as it may be.
    expect(deltas.length).toBeGreaterThanOrEqual((whole.length - 1) * MAX_DELTA_DEPTH);
    expect(whole.length).toBeGreaterThan(1);
    // A full window is 12 messages of ~220 bytes; a delta carries the turn's two and the indexes that left.
    const largestDelta = Math.max(...deltas.map((blob) => blob.size));
    expect(largestDelta * 3).toBeLessThan(Math.max(...whole.map((blob) => blob.size)));

    const expected = await messagesOf(writer.saver, thread_id);
    expect(expected).toHaveLength(12);
    expect(expected.at(-1)).toMatch(/^reply #/);
    // Another process (nothing held): the latest, and each checkpoint by id, as the writer reads them.
    expect(await inNewProcess((reader) => messagesOf(reader, thread_id))).toEqual(expected);
    for await (const tuple of writer.saver.list({ configurable: { thread_id } }, { limit: 8 })) {
      const id = tuple.config.configurable!.checkpoint_id as string;
      expect(await inNewProcess((reader) => messagesOf(reader, thread_id, id))).toEqual(
        await messagesOf(writer.saver, thread_id, id),
      );
    }
  });

  it('two processes taking turns on one thread each build on what the other wrote', async () => {
    const thread_id = randomUUID();
    const seen = await inNewProcess(async (other) => {
      for (let i = 0; i < 9; i++) await say(i % 3 === 2 ? other : writer.saver, thread_id, i);
      const both = [await messagesOf(writer.saver, thread_id), await messagesOf(other, thread_id)];
      expect(both[1]).toEqual(both[0]);
      return both[0]!;
    });
    expect(seen).toHaveLength(12);
    expect(seen.filter((text) => text.startsWith('message ')).map((text) => text.split(' ')[1])).toEqual([
      '3',
      '4',
      '5',
      '6',
      '7',
      '8',
    ]);
    expect(await inNewProcess((reader) => messagesOf(reader, thread_id))).toEqual(seen);
  });

  it('a delta whose base is gone fails the read, naming the blob, instead of reading as an empty conversation', async () => {
    const thread_id = randomUUID();
    for (let i = 0; i < 4; i++)
      await appendGraph(writer.saver, 'a').invoke(
        { messages: [{ role: 'user', content: `m${i}` }] },
        { configurable: { thread_id } },
      );
    const blobs = await blobsOf(thread_id);
    const lastDelta = [...blobs].reverse().find((blob) => blob.type === DELTA_TYPE)!;
    expect(lastDelta).toBeDefined();
    const base = blobs[blobs.indexOf(lastDelta) - 1]!;
    await pool.query(
      `delete from ${CHECKPOINTER_SCHEMA}.checkpoint_blobs where thread_id = $1 and channel = 'messages' and version = $2`,
      [thread_id, base.version],
    );
    await inNewProcess((reader) =>
      expect(reader.getTuple({ configurable: { thread_id } })).rejects.toThrow(
        new RegExp(`${thread_id}/messages@${base.version}.*missing`),
      ),
    );
  });
});
