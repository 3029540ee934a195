// A conversation the saver wrote or read is neither fetched, revived nor serialised again in full
// (channel-values.ts, message-serde.ts): a read that meets a version it holds gets the value without its
// blob, and what it returns is always what the database holds — after another process wrote the thread,
// past the memory budget, after a delete — and each reader gets its own list. The memoised serializer
// writes the stock serializer's bytes, and blobs of any bytes survive the packed parameter.
import { randomUUID } from 'node:crypto';
import { createPgConfig } from '@electric-sql/pglite/node-postgres';
import { AIMessage, HumanMessage, SystemMessage, ToolMessage, type BaseMessage } from '@langchain/core/messages';
import { JsonPlusSerializer } from '@langchain/langgraph-checkpoint';
import { PostgresSaver } from '@langchain/langgraph-checkpoint-postgres';
import { messagesStateReducer } from '@langchain/langgraph';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BatchedPostgresSaver } from '../../../src/core/agent/checkpoint/batched-saver.ts';
import { CHECKPOINTER_SCHEMA } from '../../../src/core/agent/checkpoint/checkpointer.ts';
import { MessageMemoSerializer } from '../../../src/core/agent/checkpoint/message-serde.ts';
import { describeEachBackend } from '../../helpers/databases.ts';
import { appendGraph, texts } from './graphs.ts';

interface ReadRow {
  channel: string | null;
  part: number;
  known: boolean;
  blob: Buffer | null;
}

describeEachBackend('channel values the saver already holds', (db) => {
  let pool: pg.Pool;
  /** The rows of every checkpoint read that reached the database, per read. */
  const reads: ReadRow[][] = [];
  const saver = (options: { valuesBudgetBytes?: number } = {}) =>
    new BatchedPostgresSaver(pool, CHECKPOINTER_SCHEMA, { prepared: !db().pglite, ...options });
  beforeAll(() => {
    pool = new pg.Pool(
      db().pglite ? { ...createPgConfig(db().pglite!), max: 1 } : { connectionString: db().url!, max: 2 },
    );
    const query = pool.query.bind(pool) as (
      text: string | pg.QueryConfig,
      values?: unknown[],
    ) => Promise<{ rows: ReadRow[] }>;
    (pool as unknown as { query: typeof query }).query = async (text, values) => {
      const result = await query(text, values);
      if (/^\s*with cp as \(/i.test(typeof text === 'string' ? text : text.text)) reads.push(result.rows);
      return result;
    };
  });
  afterAll(() => pool.end());

  const messagesRow = (rows: ReadRow[]) => rows.find((row) => row.part === 1 && row.channel === 'messages')!;
  const latest = (reader: BatchedPostgresSaver, thread_id: string) => reader.getTuple({ configurable: { thread_id } });
  const messagesOf = async (reader: BatchedPostgresSaver, thread_id: string) =>
    texts((await latest(reader, thread_id))!.checkpoint.channel_values.messages as BaseMessage[]);

  it('a conversation this saver wrote comes back without its blob, and as the database holds it', async () => {
    const thread_id = randomUUID();
    const writer = saver();
    await appendGraph(writer, 'a').invoke(
      { messages: [{ role: 'user', content: 'مرحبا 👋' }] },
      { configurable: { thread_id } },
    );
    reads.length = 0;
    expect(await messagesOf(writer, thread_id)).toEqual(['مرحبا 👋', 'a #1']);
    expect(messagesRow(reads[0]!)).toMatchObject({ known: true, blob: null });
    // A saver that holds nothing (another process) fetches the blob and reads the same.
    expect(await messagesOf(saver(), thread_id)).toEqual(['مرحبا 👋', 'a #1']);
    expect(messagesRow(reads[1]!)).toMatchObject({ known: false });
    expect(messagesRow(reads[1]!).blob!.length).toBeGreaterThan(0);
  });

  it('a version written by another process since is fetched, not the one held', async () => {
    const thread_id = randomUUID();
    const here = saver();
    const elsewhere = saver();
    await appendGraph(here, 'a').invoke(
      { messages: [{ role: 'user', content: 'one' }] },
      { configurable: { thread_id } },
    );
    await appendGraph(elsewhere, 'b').invoke(
      { messages: [{ role: 'user', content: 'two' }] },
      { configurable: { thread_id } },
    );
    reads.length = 0;
    expect(await messagesOf(here, thread_id)).toEqual(['one', 'a #1', 'two', 'b #3']);
    expect(messagesRow(reads[0]!).known).toBe(false);
    // Read once, it is held from then on.
    expect(await messagesOf(here, thread_id)).toEqual(['one', 'a #1', 'two', 'b #3']);
    expect(messagesRow(reads[1]!).known).toBe(true);
    // And the next turn here builds on it.
    await appendGraph(here, 'a').invoke(
      { messages: [{ role: 'user', content: 'three' }] },
      { configurable: { thread_id } },
    );
    expect(await messagesOf(saver(), thread_id)).toEqual(['one', 'a #1', 'two', 'b #3', 'three', 'a #5']);
  });

  it('each reader gets its own list', async () => {
    const thread_id = randomUUID();
    const reader = saver();
    await appendGraph(reader, 'a').invoke(
      { messages: [{ role: 'user', content: 'one' }] },
      { configurable: { thread_id } },
    );
    const first = (await latest(reader, thread_id))!.checkpoint.channel_values.messages as BaseMessage[];
    first.push(new HumanMessage('not in the thread'));
    first.shift();
    expect(await messagesOf(reader, thread_id)).toEqual(['one', 'a #1']);
  });

  it('past the memory budget nothing is held, and reads stay whole', async () => {
    const thread_id = randomUUID();
    const small = saver({ valuesBudgetBytes: 64 });
    await appendGraph(small, 'a').invoke(
      { messages: [{ role: 'user', content: 'x'.repeat(200) }] },
      { configurable: { thread_id } },
    );
    reads.length = 0;
    expect(await messagesOf(small, thread_id)).toEqual(['x'.repeat(200), 'a #1']);
    expect(messagesRow(reads[0]!).known).toBe(false);
  });

  it('the least recently used thread goes first when the budget is spent', async () => {
    const [older, newer] = [randomUUID(), randomUUID()];
    const reader = saver({ valuesBudgetBytes: 2_000 }); // room for one thread's ~1.3 kB, not two
    for (const thread_id of [older, newer])
      await appendGraph(reader, 'a').invoke(
        { messages: [{ role: 'user', content: 'y'.repeat(1_000) }] },
        { configurable: { thread_id } },
      );
    reads.length = 0;
    await messagesOf(reader, newer);
    await messagesOf(reader, older);
    expect(reads.map((rows) => messagesRow(rows).known)).toEqual([true, false]);
  });

  it('a deleted thread is forgotten', async () => {
    const thread_id = randomUUID();
    const reader = saver();
    await appendGraph(reader, 'a').invoke(
      { messages: [{ role: 'user', content: 'one' }] },
      { configurable: { thread_id } },
    );
    await reader.deleteThread(thread_id);
    expect(await latest(reader, thread_id)).toBeUndefined();
    await appendGraph(reader, 'b').invoke(
      { messages: [{ role: 'user', content: 'again' }] },
      { configurable: { thread_id } },
    );
    expect(await messagesOf(reader, thread_id)).toEqual(['again', 'b #1']);
  });

  it('blobs of every byte value, and writes without a blob, survive the packed parameter', async () => {
    const thread_id = randomUUID();
    const writer = saver();
    const stock = new PostgresSaver(pool, undefined, { schema: CHECKPOINTER_SCHEMA });
    const every = Uint8Array.from({ length: 512 }, (_, i) => i % 256);
    const config = await writer.put(
      { configurable: { thread_id, checkpoint_ns: '' } },
      {
        v: 4,
        id: '1f000000-0000-6000-8000-000000000001',
        ts: new Date(0).toISOString(),
        channel_values: { raw: every, other: Uint8Array.of(0, 255) },
        channel_versions: { raw: '1', other: '1', gone: '1' },
        versions_seen: {},
      },
      { source: 'input', step: -1, parents: {} },
      { raw: '1', other: '1', gone: '1' },
    );
    await writer.putWrites(
      config,
      [
        ['raw', Uint8Array.of(1, 0, 2)],
        ['missing', undefined],
        ['raw', every],
      ],
      'task-1',
    );
    for (const reader of [writer, stock]) {
      const tuple = (await reader.getTuple({ configurable: { thread_id } }))!;
      expect(Buffer.from(tuple.checkpoint.channel_values.raw as Uint8Array)).toEqual(Buffer.from(every));
      expect(Buffer.from(tuple.checkpoint.channel_values.other as Uint8Array)).toEqual(Buffer.from([0, 255]));
      expect('gone' in tuple.checkpoint.channel_values).toBe(false);
      expect(
        tuple.pendingWrites!.map(([, channel, value]) => [channel, value instanceof Uint8Array ? [...value] : value]),
      ).toEqual([
        ['raw', [1, 0, 2]],
        ['missing', undefined],
        ['raw', [...every]],
      ]);
    }
  });
});

describe('the memoised message serializer', () => {
  const conversation = (): BaseMessage[] => [
    new SystemMessage({ content: 'summary of earlier turns', id: 'summary-1' }),
    new HumanMessage({ content: 'مرحبا، كيف حالك؟ 👋🏽', id: 'h-1' }),
    new AIMessage({
      content: '',
      id: 'ai-1',
      tool_calls: [{ id: 'call_1', name: 'shell', args: { command: 'ls "a b"' }, type: 'tool_call' }],
      response_metadata: { model_name: 'fake', finish_reason: 'tool_calls' },
    }),
    new ToolMessage({ content: 'a b\nc', tool_call_id: 'call_1', id: 't-1', name: 'shell' }),
    new AIMessage({ content: [{ type: 'text', text: 'done ✅' }], id: 'ai-2', additional_kwargs: { refusal: null } }),
  ];

  it('writes the stock serializer’s bytes, the first time and from memory', async () => {
    const memo = new MessageMemoSerializer();
    const stock = new JsonPlusSerializer();
    const messages = conversation();
    expect(await memo.dumpsTyped(messages)).toEqual(await stock.dumpsTyped(messages));
    const longer = [...messages, new HumanMessage({ content: 'and then?', id: 'h-2' })];
    expect(await memo.dumpsTyped(longer)).toEqual(await stock.dumpsTyped(longer));
    for (const other of [[], { messages }, 'text', [messages[0], 'not a message']])
      expect(await memo.dumpsTyped(other)).toEqual(await stock.dumpsTyped(other));
  });

  it('serialises a message again once LangGraph gives it an id', async () => {
    const memo = new MessageMemoSerializer();
    const stock = new JsonPlusSerializer();
    const unnamed = new HumanMessage('no id yet');
    await memo.dumpsTyped([unnamed]);
    const merged = messagesStateReducer([], [unnamed]);
    expect(unnamed.id).toBeDefined();
    expect(await memo.dumpsTyped(merged)).toEqual(await stock.dumpsTyped(merged));
  });
});
