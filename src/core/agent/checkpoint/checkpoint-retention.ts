// Checkpoint retention. Every turn adds a checkpoint to its thread, and every MAX_DELTA_DEPTH turns the
// conversation's blob is written whole (a full window: ~100 KB), so the checkpoint tables grew with every
// turn ever taken, for good. Kazma reads only a thread's latest checkpoint (and its pending writes: a
// question waiting for approval); a conversation's history lives in the transcript archive. So the sweep
// keeps each thread's newest checkpoints, the blobs they reach (their channels' versions and, for a delta,
// the chain of bases it is written on), and their pending writes, and deletes the rest.
import { randomUUID } from 'node:crypto';
import type pg from 'pg';
import type { ThreadLeases } from '../../turns/index.ts';
import { DELTA_TYPE, type DeltaHeader } from './message-deltas.ts';

/** Options for {@link CheckpointRetention}. */
export interface CheckpointRetentionOptions {
  /** The checkpointer's pool (checkpointer.ts). */
  pool: Pick<pg.Pool, 'query'>;
  /** The checkpointer's schema. */
  schema: string;
  /** The thread leases every graph drive holds: a thread is pruned only while nobody runs it. */
  leases: Pick<ThreadLeases, 'acquire' | 'release'>;
  /** This process's name (the lease holder's prefix). */
  owner: string;
  /** Newest checkpoints kept per thread and namespace; default 2 (a read of the one before stays whole). */
  keep?: number;
  /** A thread is pruned once it holds more checkpoints than this; default 20. */
  pruneOver?: number;
  /** Threads pruned per run at most; default 100 (the next sweep takes the rest). */
  batch?: number;
}

/** What one run deleted. */
export interface RetentionRun {
  threads: number;
  checkpoints: number;
  blobs: number;
  writes: number;
  /** Threads left for a later run: someone held them, or a delta named a base elsewhere. */
  skipped: number;
}

interface KeptCheckpoint {
  checkpoint_ns: string;
  checkpoint_id: string;
  versions: Record<string, string | number> | null;
}

interface BlobHead {
  checkpoint_ns: string;
  channel: string;
  version: string;
  /** A delta blob's header (its JSON, before the first newline); null for a whole blob. */
  header: string | null;
}

/**
 * Deletes what no kept checkpoint can reach, thread by thread, each under the thread's lease.
 *
 * Inputs: the checkpoint tables. Outputs: per thread holding more than `pruneOver` checkpoints, only the
 * `keep` newest of each namespace left, with their pending writes and every blob they reach.
 * Invariants: a thread is touched only while this run holds its lease, so no turn writes or resumes it
 * meanwhile (every graph drive holds it: turn-runner.ts); a blob a kept checkpoint names, or that a kept
 * delta is built on, however deep its chain, is never deleted; a thread whose chains cannot be followed
 * (a base in another thread or namespace) is left whole.
 */
export class CheckpointRetention {
  readonly #o: Required<CheckpointRetentionOptions>;
  readonly #table: (name: string) => string;

  constructor(options: CheckpointRetentionOptions) {
    this.#o = { keep: 2, pruneOver: 20, batch: 100, ...options };
    if (this.#o.keep < 1) throw new RangeError('checkpoint retention must keep at least the latest checkpoint');
    this.#table = (name) => `"${this.#o.schema}".${name}`;
  }

  async run(): Promise<RetentionRun> {
    const { rows } = await this.#o.pool.query<{ thread_id: string }>(
      `select thread_id from ${this.#table('checkpoints')} group by thread_id having count(*) > $1 limit $2`,
      [this.#o.pruneOver, this.#o.batch],
    );
    const total: RetentionRun = { threads: 0, checkpoints: 0, blobs: 0, writes: 0, skipped: 0 };
    for (const { thread_id } of rows) {
      const pruned = await this.pruneThread(thread_id);
      if (!pruned) {
        total.skipped++;
        continue;
      }
      total.threads++;
      total.checkpoints += pruned.checkpoints;
      total.blobs += pruned.blobs;
      total.writes += pruned.writes;
    }
    return total;
  }

  /** Prunes one thread now; undefined when it was left as it is (someone holds it, or a chain leaves it). */
  async pruneThread(threadId: string): Promise<{ checkpoints: number; blobs: number; writes: number } | undefined> {
    const holder = `${this.#o.owner}/retention-${randomUUID().slice(0, 8)}`;
    if (!(await this.#o.leases.acquire(threadId, holder))) return undefined;
    try {
      const kept = await this.#kept(threadId);
      const blobs = reachedBlobs(threadId, kept, await this.#blobHeads(threadId));
      if (!blobs) return undefined;
      return await this.#delete(threadId, kept, blobs);
    } finally {
      await this.#o.leases.release(threadId, holder);
    }
  }

  /** The `keep` newest checkpoints of each namespace of the thread, with their channels' versions. */
  async #kept(threadId: string): Promise<KeptCheckpoint[]> {
    const { rows } = await this.#o.pool.query<KeptCheckpoint>(
      `select checkpoint_ns, checkpoint_id, versions from (
         select checkpoint_ns, checkpoint_id, checkpoint -> 'channel_versions' as versions,
                row_number() over (partition by checkpoint_ns order by checkpoint_id desc) as newest
         from ${this.#table('checkpoints')} where thread_id = $1) ranked
       where newest <= $2`,
      [threadId, this.#o.keep],
    );
    return rows;
  }

  /** Every blob of the thread by its key, with a delta's header (read from the blob's first line only). */
  async #blobHeads(threadId: string): Promise<BlobHead[]> {
    const { rows } = await this.#o.pool.query<BlobHead>(
      `select checkpoint_ns, channel, version,
              case when type = $2 then convert_from(substring(blob from 1 for position('\\x0a'::bytea in blob) - 1),
                'UTF8') end as header
       from ${this.#table('checkpoint_blobs')} where thread_id = $1`,
      [threadId, DELTA_TYPE],
    );
    return rows;
  }

  /** One statement: the thread's other checkpoints, their pending writes, and the blobs not in `blobs`. */
  async #delete(
    threadId: string,
    kept: KeptCheckpoint[],
    blobs: BlobKeys,
  ): Promise<{ checkpoints: number; blobs: number; writes: number }> {
    const keptList = `select * from unnest($2::text[], $3::text[]) as k(ns, id)`;
    const { rows } = await this.#o.pool.query<{ checkpoints: number; blobs: number; writes: number }>(
      `with gone_checkpoints as (
         delete from ${this.#table('checkpoints')} where thread_id = $1 and (checkpoint_ns, checkpoint_id) not in
           (${keptList}) returning 1),
       gone_writes as (
         delete from ${this.#table('checkpoint_writes')} where thread_id = $1 and (checkpoint_ns, checkpoint_id) not
           in (${keptList}) returning 1),
       gone_blobs as (
         delete from ${this.#table('checkpoint_blobs')} where thread_id = $1
           and (checkpoint_ns, channel, version) not in (select * from unnest($4::text[], $5::text[], $6::text[]))
             returning 1)
       select (select count(*)::int from gone_checkpoints) as checkpoints, (select count(*)::int from gone_blobs) as
         blobs,
              (select count(*)::int from gone_writes) as writes`,
      [
        threadId,
        kept.map((k) => k.checkpoint_ns),
        kept.map((k) => k.checkpoint_id),
        blobs.ns,
        blobs.channel,
        blobs.version,
      ],
    );
    return rows[0]!;
  }
}

/** Blob keys as three parallel arrays (the delete's unnest). */
interface BlobKeys {
  ns: string[];
  channel: string[];
  version: string[];
}

/**
 * The blobs the kept checkpoints reach: each channel's version and, while that blob is a delta, the base
 * it names, down to a whole blob (or to a base already gone). Undefined when a delta names a base outside
 * its own thread, namespace and channel: this Kazma never writes one, and what it cannot follow it keeps.
 */
function reachedBlobs(
  threadId: string,
  kept: readonly KeptCheckpoint[],
  heads: readonly BlobHead[],
): BlobKeys | undefined {
  const keyOf = (ns: string, channel: string, version: string) => JSON.stringify([ns, channel, version]);
  const byKey = new Map(heads.map((head) => [keyOf(head.checkpoint_ns, head.channel, head.version), head]));
  const reached = new Map<string, [string, string, string]>();
  for (const checkpoint of kept) {
    for (const [channel, named] of Object.entries(checkpoint.versions ?? {})) {
      let version: string | undefined = String(named);
      while (version !== undefined) {
        const key = keyOf(checkpoint.checkpoint_ns, channel, version);
        if (reached.has(key)) break;
        reached.set(key, [checkpoint.checkpoint_ns, channel, version]);
        const header = byKey.get(key)?.header;
        if (header === null || header === undefined) break;
        const delta = JSON.parse(header) as DeltaHeader;
        if (delta.thread !== threadId || delta.ns !== checkpoint.checkpoint_ns || delta.channel !== channel)
          return undefined;
        version = delta.base;
      }
    }
  }
  const keys = [...reached.values()];
  return { ns: keys.map((k) => k[0]), channel: keys.map((k) => k[1]), version: keys.map((k) => k[2]) };
}
