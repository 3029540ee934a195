// PostgresSaver with its two writes batched: LangGraph's saver writes a checkpoint as BEGIN, one INSERT per
// channel blob, the checkpoint row, COMMIT (a simple turn: 8 statements), and a step's writes as BEGIN, one
// INSERT per write, COMMIT. Here each is ONE statement — the blobs ride in arrays through `unnest`, in a
// data-modifying CTE beside the checkpoint row — so it is atomic without a transaction, and costs one
// round trip (on PGlite, one turn of the session mutex) instead of up to ten.
//
// Inputs and outputs are PostgresSaver's: the same rows and serialisation (it reuses the saver's own
// `_dump*`), except that a conversation's messages are written as a delta on the version before when this
// process holds it (message-deltas.ts, delta-blobs.ts) — which the stock saver's reads (`list`) also read,
// through this saver's serializer. A read of a thread's latest checkpoint may be shared with the next one
// while the caller holds the thread (shared-reads.ts), and a conversation this process wrote or read is
// neither fetched, revived nor serialised again in full (channel-values.ts, message-serde.ts).
// tests/agent/checkpointer/batched-saver.test.ts compares what it reads of rows written here — itself, cold,
// and through the stock saver's `list` — with what the stock saver reads of its own.
import { randomBytes } from 'node:crypto';
import type { RunnableConfig } from '@langchain/core/runnables';
import type {
  ChannelVersions,
  Checkpoint,
  CheckpointMetadata,
  CheckpointTuple,
  PendingWrite,
} from '@langchain/langgraph-checkpoint';
import { PostgresSaver } from '@langchain/langgraph-checkpoint-postgres';
import type pg from 'pg';
import { ChannelValues } from './channel-values.ts';
import { checkpointReadSql, knownKey, loaderInputs, type CheckpointReadRow } from './checkpoint-read.ts';
import { DeltaBases, dumpChannel, type DumpedBlob, type FetchedBlob } from './delta-blobs.ts';
import { MessageMemoSerializer } from './message-serde.ts';
import { SharedLatestReads } from './shared-reads.ts';
import { batchedStatements, packed, SPECIAL_WRITE_INDEX } from './batched-statements.ts';

export class BatchedPostgresSaver extends PostgresSaver {
  readonly #pool: pg.Pool;
  /** The statements' texts (batched-statements.ts, checkpoint-read.ts). */
  readonly #sql: ReturnType<typeof batchedStatements> & { read: string };
  readonly #schema: string;
  readonly #prepared: boolean;
  /**
   * Set apart this saver's statement names in a session other savers share (PGlite): random, so no count
   * of savers is kept anywhere (48 bits: two savers of one session never meet).
   */
  readonly #nameSuffix: string;
  /** A turn's second read of its thread's latest checkpoint reuses its first (shared-reads.ts). */
  readonly reads = new SharedLatestReads();
  /** The conversations this process wrote or read, by version (channel-values.ts). */
  readonly #values: ChannelValues;

  /**
   * `prepared`: name the statements. On PostgreSQL each connection of `pool` is a session of its own. On
   * PGlite every pool's one connection feeds the same session, so each saver's names must be its own
   * (`sessionShared`): node-postgres remembers what it prepared per connection, and a second pool would
   * prepare a name the first already holds (an error).
   * `valuesBudgetBytes`: how much of the conversations it wrote or read the saver keeps (default 8 MB of JSON).
   */
  constructor(
    pool: pg.Pool,
    schema: string,
    options: { prepared?: boolean; sessionShared?: boolean; valuesBudgetBytes?: number } = {},
  ) {
    const serde = new MessageMemoSerializer();
    super(pool, serde, { schema });
    this.#values = new ChannelValues({ budgetBytes: options.valuesBudgetBytes });
    this.#pool = pool;
    const statements = batchedStatements(schema);
    const bases = new DeltaBases({
      values: this.#values,
      serde,
      fetch: async (where, versions) =>
        (
          await pool.query<FetchedBlob>(
            this.#named('delta_bases', statements.fetchBases, [where.thread, where.ns, where.channel, versions]),
          )
        ).rows,
    });
    serde.loadDeltasWith((blob) => bases.load(blob));
    this.#sql = { ...statements, read: checkpointReadSql(schema) };
    this.#schema = schema;
    this.#prepared = options.prepared ?? false;
    this.#nameSuffix = options.sessionShared ? `_${randomBytes(6).toString('hex')}` : '';
  }

  override async getTuple(config: RunnableConfig): Promise<CheckpointTuple | undefined> {
    const {
      thread_id,
      checkpoint_ns = '',
      checkpoint_id,
    } = (config.configurable ?? {}) as { thread_id?: string; checkpoint_ns?: string; checkpoint_id?: string };
    if (thread_id === undefined) return super.getTuple(config);
    if (checkpoint_ns !== '' || checkpoint_id !== undefined)
      return this.#read(config, thread_id, checkpoint_ns, checkpoint_id);
    return this.reads.latest(thread_id, () => this.#read(config, thread_id, checkpoint_ns, undefined));
  }

  /**
   * A named statement: node-postgres prepares it once per connection, so the server parses and plans
   * these four texts once instead of on every read and write.
   */
  #named(name: string, text: string, values: unknown[]): pg.QueryConfig {
    return this.#prepared
      ? { name: `kazma_${this.#schema}_${name}${this.#nameSuffix}`, text, values }
      : { text, values };
  }

  /** One checkpoint, its values and its pending writes as rows of plain bytea (checkpoint-read.ts). */
  async #read(
    config: RunnableConfig,
    thread_id: string,
    checkpoint_ns: string,
    checkpoint_id: string | undefined,
  ): Promise<CheckpointTuple | undefined> {
    const known = this.#values.known(thread_id, checkpoint_ns);
    const knownKeys = [...known].map(([channel, { version }]) => knownKey(channel, version));
    const { rows } = await this.#pool.query<CheckpointReadRow>(
      this.#named('read', this.#sql.read, [thread_id, checkpoint_ns, checkpoint_id ?? null, knownKeys]),
    );
    const head = rows[0];
    if (head?.part !== 0 || !head.checkpoint) return undefined;
    // Checkpoints of format 1–3 keep their pending sends elsewhere: the stock read migrates them.
    if (head.checkpoint.v < 4 && head.parent_checkpoint_id != null) return super.getTuple(config);
    const { channelValues, pendingWrites, held } = loaderInputs(rows);
    const checkpoint = await this._loadCheckpoint(head.checkpoint as never, channelValues as never);
    for (const channel of held) checkpoint.channel_values[channel] = [...known.get(channel)!.value];
    this.#values.rememberRead(thread_id, checkpoint_ns, checkpoint.channel_values, rows);
    return {
      config: { configurable: { thread_id, checkpoint_ns, checkpoint_id: head.checkpoint_id } },
      checkpoint,
      metadata: await this._loadMetadata(head.metadata as never),
      parentConfig: head.parent_checkpoint_id
        ? { configurable: { thread_id, checkpoint_ns, checkpoint_id: head.parent_checkpoint_id } }
        : undefined,
      pendingWrites: await this._loadWrites(pendingWrites as never),
    };
  }

  override async deleteThread(threadId: string): Promise<void> {
    this.reads.written(threadId);
    this.#values.forgetThread(threadId);
    await super.deleteThread(threadId);
  }

  override async put(
    config: RunnableConfig,
    checkpoint: Checkpoint,
    metadata: CheckpointMetadata,
    newVersions: ChannelVersions,
  ): Promise<RunnableConfig> {
    if (config.configurable === undefined) throw new Error('Missing "configurable" field in "config" param');
    const {
      thread_id,
      checkpoint_ns = '',
      checkpoint_id,
    } = config.configurable as { thread_id: string; checkpoint_ns?: string; checkpoint_id?: string };
    this.reads.written(thread_id);
    const [blobs, dumpedMetadata] = await Promise.all([
      this.#dumpBlobs(thread_id, checkpoint_ns, checkpoint.channel_values, newVersions),
      this._dumpMetadata(metadata),
    ]);
    const blobBytes = packed(blobs.map((b) => b.blob));
    await this.#pool.query(
      this.#named('put', this.#sql.put, [
        thread_id,
        checkpoint_ns,
        blobs.map((b) => b.channel),
        blobs.map((b) => b.version),
        blobs.map((b) => b.type),
        blobBytes.bytes,
        checkpoint.id,
        checkpoint_id ?? null,
        this._dumpCheckpoint(checkpoint),
        dumpedMetadata,
        blobBytes.at,
        blobBytes.length,
      ]),
    );
    for (const { channel, version, remember } of blobs)
      if (remember) this.#values.remember(thread_id, checkpoint_ns, channel, { version, ...remember });
    return { configurable: { thread_id, checkpoint_ns, checkpoint_id: checkpoint.id } };
  }

  /** The stock `_dumpBlobs`, with a conversation written as a delta on what this process holds (delta-blobs.ts). */
  async #dumpBlobs(
    thread: string,
    ns: string,
    values: Record<string, unknown>,
    versions: ChannelVersions,
  ): Promise<Array<DumpedBlob & { channel: string; version: string }>> {
    const known = this.#values.known(thread, ns);
    return Promise.all(
      Object.entries(versions).map(async ([channel, v]) => {
        const version = v.toString();
        const dumped: DumpedBlob =
          channel in values
            ? await dumpChannel(
                this.serde as MessageMemoSerializer,
                { thread, ns, channel },
                values[channel],
                known.get(channel),
              )
            : { type: 'empty', blob: undefined };
        return { ...dumped, channel, version };
      }),
    );
  }

  override async putWrites(config: RunnableConfig, writes: PendingWrite[], taskId: string): Promise<void> {
    if (writes.length === 0) return;
    const {
      thread_id,
      checkpoint_ns = '',
      checkpoint_id,
    } = (config.configurable ?? {}) as { thread_id: string; checkpoint_ns?: string; checkpoint_id: string };
    this.reads.written(thread_id);
    const upsert = writes.every(([channel]) => channel in SPECIAL_WRITE_INDEX);
    const dumped = await this._dumpWrites(thread_id, checkpoint_ns, checkpoint_id, taskId, writes);
    // One statement may not touch a row twice: of writes sharing an index, the stock saver's row-by-row
    // statements keep the last (upsert) or the first (insert); keep the same one.
    const byIndex = new Map<number, (typeof dumped)[number]>();
    for (const write of upsert ? dumped : [...dumped].reverse()) byIndex.set(write[4], write);
    const rows = [...byIndex.values()];
    const blobBytes = packed(rows.map((w) => w[7]));
    await this.#pool.query(
      this.#named(
        upsert ? 'upsert_writes' : 'insert_writes',
        upsert ? this.#sql.upsertWrites : this.#sql.insertWrites,
        [
          thread_id,
          checkpoint_ns,
          checkpoint_id,
          taskId,
          rows.map((w) => w[4]),
          rows.map((w) => w[5]),
          rows.map((w) => w[6]),
          blobBytes.bytes,
          blobBytes.at,
          blobBytes.length,
        ],
      ),
    );
  }
}
