// The one BullMQ driver: a queue per lane, a worker per lane, and every job dispatched by its name to
// the kind the owning module registered. Only src/jobs imports bullmq or ioredis (an architecture test
// checks it); the core speaks through the JobQueue port.
import { Queue, Worker, type ConnectionOptions, type JobsOptions } from 'bullmq';
// ioredis' options type and BullMQ's structural copy of it disagree on details; the values are the same.
import { Redis, type RedisOptions } from 'ioredis';
import {
  JOB_LANES,
  JOB_STATES,
  type JobDepths,
  type JobKind,
  type JobKinds,
  type JobLane,
  type JobOptions,
  type JobQueue,
  type JobState,
} from '../core/jobs/index.ts';
import type { Logger, OutageLog } from '../core/log/index.ts';
import { watchMemory } from './memory.ts';

/** Options for {@link BullJobDriver}. */
export interface BullJobDriverOptions {
  connection: RedisOptions;
  /** Key prefix: processes sharing a database share queues; two installs on one Redis stay apart. */
  prefix: string;
  kinds: JobKinds;
  /** Jobs one process runs at once, per lane (`jobs.concurrency.<lane>`); default 4. */
  concurrency?: Partial<Record<JobLane, number>>;
  /** `jobs.lease_ttl`: a job whose worker stopped renewing its lock this long ago goes to another; default 15 s. */
  stalledAfterMs?: number;
  logger: Logger;
  /** Told of each failed attempt's error (a lost database connection starts the database's outage log). */
  onJobFailed?: (error: Error) => void;
  /** Says a Redis outage once (its workers would each log every reconnect attempt); default: every error is logged. */
  outage?: OutageLog;
}

/**
 * Runs the job port on BullMQ. Queues exist from construction (enqueue works at once); workers start
 * with {@link startWorkers} — a process may enqueue without working (and later, `kazma worker` works
 * without chat connections). Stall detection hands a job whose worker died to another within twice
 * `stalledAfterMs` (its lock lapses, then the next stalled-job check finds it).
 */
export class BullJobDriver implements JobQueue, JobDepths {
  readonly #o: BullJobDriverOptions;
  readonly #queues = new Map<JobLane, Queue>();
  readonly #workers: Worker[] = [];
  /** Stops watching for Redis forgetting the jobs, and closes the watch's connection. */
  #unwatch: (() => Promise<void>) | undefined;

  constructor(options: BullJobDriverOptions) {
    this.#o = options;
    for (const lane of JOB_LANES) this.#queues.set(lane, new Queue(lane, this.#connection()));
  }

  /** Starts one worker per lane (`kazma worker` runs only the swarm lane); idempotent. */
  startWorkers(lanes: readonly JobLane[] = JOB_LANES): void {
    if (this.#workers.length > 0) return;
    const { kinds, logger } = this.#o;
    const stalledAfterMs = this.#o.stalledAfterMs ?? 15_000;
    for (const lane of lanes) {
      if (this.#o.concurrency?.[lane] === 0) continue; // e.g. jobs.concurrency.swarm: 0 — tasks run elsewhere
      const worker = new Worker(lane, (job) => kinds.run(job.name, job.data), {
        ...this.#connection(),
        concurrency: this.#o.concurrency?.[lane] ?? 4,
        // Stall detection is what recovers a job whose worker died; BullMQ renews a live job's lock at half
        // lockDuration, and checks for lapsed locks every stalledInterval.
        lockDuration: stalledAfterMs,
        stalledInterval: stalledAfterMs,
        maxStalledCount: 1,
        settings: { backoffStrategy: retryDelay },
      });
      worker.on('failed', (job, error) => {
        logger.warn({ lane, kind: job?.name, attempt: job?.attemptsMade, err: error.message }, 'a job failed');
        this.#o.onJobFailed?.(error);
      });
      const outage = this.#o.outage;
      worker.on('error', (error) =>
        outage && isConnectionError(error)
          ? outage.failed(error)
          : logger.error({ lane, err: error.message }, 'job worker error'),
      );
      this.#workers.push(worker);
    }
  }

  /**
   * Calls `onLost` when Redis has forgotten this install's jobs (a marker key under the prefix is gone:
   * memory.ts), checked every `everyMs` and at each reconnection. `onLost` derives them again from the
   * database; until it resolves the marker stays missing, so a failed restore is tried again.
   */
  async watchMemory(options: { everyMs: number; lostAtStart: boolean; onLost: () => Promise<void> }): Promise<void> {
    if (this.#unwatch) return;
    // A connection of its own: BullMQ's are blocking or busy; this one only reads and writes the marker.
    const client = new Redis({ ...this.#o.connection, maxRetriesPerRequest: 1, lazyConnect: false });
    client.on('error', () => undefined); // the workers' connections report outages (OutageLog)
    const stop = await watchMemory({
      client,
      key: `${this.#o.prefix}:kazma:memory`,
      logger: this.#o.logger,
      ...options,
    });
    this.#unwatch = async () => {
      stop();
      client.disconnect();
    };
  }

  async enqueue<P>(kind: JobKind<P>, payload: P, options: JobOptions = {}): Promise<void> {
    await this.enqueueAll(kind, [{ payload, options }]);
  }

  /** Several jobs of one kind in one round trip (outbox deliveries of one decision). */
  async enqueueAll<P>(kind: JobKind<P>, jobs: ReadonlyArray<{ payload: P; options?: JobOptions }>): Promise<void> {
    const queue = this.#queues.get(kind.lane)!;
    const once: Array<{ name: string; data: P; opts: JobsOptions }> = [];
    for (const { payload, options = {} } of jobs) {
      kind.payload.parse(payload); // a bad payload fails the caller, not a worker later
      const opts = jobOptions(kind, options);
      if (!options.repeat) {
        once.push({ name: kind.name, data: payload, opts });
        continue;
      }
      if (!options.jobId) throw new Error(`a repeating ${kind.name} job needs a jobId to key its schedule`);
      const every =
        'everyMs' in options.repeat
          ? { every: options.repeat.everyMs }
          : { pattern: options.repeat.pattern, ...(options.repeat.tz && { tz: options.repeat.tz }) };
      await queue.upsertJobScheduler(options.jobId, every, {
        name: kind.name,
        data: payload,
        opts: { removeOnComplete: true, removeOnFail: 100 },
      });
    }
    if (once.length > 0) await queue.addBulk(once);
  }

  async forget(kind: JobKind<unknown>, jobId: string): Promise<void> {
    const queue = this.#queues.get(kind.lane)!;
    await queue.removeJobScheduler(jobId);
    // A job that is running cannot be removed; its handler's compare-and-set on the row stops it instead.
    await queue.remove(bullJobId(jobId)).catch(() => undefined);
  }

  /** Each lane's jobs by state, as Redis holds them now: one round trip per lane. */
  async depths(): Promise<Record<JobLane, Record<JobState, number>>> {
    const lanes = await Promise.all(
      JOB_LANES.map(async (lane) => {
        const counts = await this.#queues.get(lane)!.getJobCounts(...JOB_STATES);
        return [lane, Object.fromEntries(JOB_STATES.map((s) => [s, counts[s] ?? 0]))] as const;
      }),
    );
    return Object.fromEntries(lanes) as Record<JobLane, Record<JobState, number>>;
  }

  /** Takes no more jobs and resolves when the running ones have ended (finished, or failed to be retried). */
  async closeWorkers(): Promise<void> {
    await Promise.all(this.#workers.map((worker) => worker.close()));
  }

  async close(): Promise<void> {
    await this.#unwatch?.();
    await this.closeWorkers();
    await Promise.all([...this.#queues.values()].map((queue) => queue.close()));
  }

  #connection() {
    return { connection: this.#o.connection as ConnectionOptions, prefix: this.#o.prefix };
  }
}

/**
 * A job id BullMQ accepts for Kazma's own: BullMQ refuses a custom id with ':' in it, and some of ours
 * hold one (a command reply's outbox row, `reply_command:telegram:<event>:1`). Escaped one way, always
 * the same, and never two ids to one (`%` is escaped first).
 */
function bullJobId(id: string): string {
  return id.replaceAll('%', '%25').replaceAll(':', '%3A');
}

/** The name of {@link retryDelay} in a job's options (BullMQ's own strategies have theirs). */
const BACKOFF = 'kazma';

/**
 * How long a failed attempt waits: doubling from the kind's first delay (0.5 s by default), but never
 * sooner than the platform asked (a 429's retry_after, carried by the adapter's error as retryAfterMs).
 * Retrying a rate-limited delivery at once only earns another 429, and Telegram lengthens the wait.
 */
function retryDelay(
  attemptsMade: number,
  _type: string | undefined,
  error: Error | undefined,
  job: { opts: JobsOptions } | undefined,
): number {
  const first = (job?.opts.backoff as { delay?: number } | undefined)?.delay ?? 500;
  const doubling = Math.round(2 ** Math.max(0, attemptsMade - 1) * first);
  const asked = (error as { retryAfterMs?: unknown } | undefined)?.retryAfterMs;
  return typeof asked === 'number' && asked > doubling ? asked : doubling;
}

function jobOptions(kind: JobKind<unknown>, options: JobOptions): JobsOptions {
  const attempts = options.attempts ?? kind.attempts ?? 1;
  return {
    ...(options.jobId !== undefined && { jobId: bullJobId(options.jobId) }),
    ...(options.delayMs !== undefined && { delay: options.delayMs }),
    attempts,
    ...(attempts > 1 && { backoff: { type: BACKOFF, delay: kind.backoffMs ?? 500 } }),
    removeOnComplete: true,
    // A job id names the work (an outbox row, a reminder), not one try at it, and BullMQ adds nothing
    // under an id it still holds, failed jobs included: a delivery whose attempts ran out could then never
    // be queued again, by the sweep or an incident's Retry. The failure is logged ('a job failed') and the
    // work's own row says where it stands, so a failed job is not kept.
    removeOnFail: true,
  };
}

/** A lost or refused connection (the outage log's business), as opposed to a worker's own failure. */
function isConnectionError(error: Error & { code?: string }): boolean {
  return (
    /^(ECONNREFUSED|ECONNRESET|ETIMEDOUT|EPIPE|ENOTFOUND|EHOSTUNREACH|ENETUNREACH|EAI_AGAIN|ENOENT)$/.test(
      error.code ?? '',
    ) || /ECONNREFUSED|ECONNRESET|Connection is closed|Stream isn't writeable|connect ETIMEDOUT/.test(error.message)
  );
}
