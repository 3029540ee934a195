// The job port: how the core asks for work to happen later, elsewhere, or again. The core names a job
// kind and hands a payload; which queue, which worker process and which library run it is src/jobs'
// business (BullMQ on Redis), so core never imports a queue library.
import type { z } from 'zod';
import { KazmaError } from '../errors.ts';

/**
 * The lanes jobs run in. Each lane is one queue with its own concurrency (`jobs.concurrency.<lane>`),
 * so a flood of one kind (card deliveries) never starves another (sweeps).
 */
export const JOB_LANES = ['outbox', 'sweeps', 'swarm', 'schedules'] as const;
export type JobLane = (typeof JOB_LANES)[number];

/** When and how often a job runs. Everything is optional; defaults: now, once, 1 attempt. */
export interface JobOptions {
  /** Dedupes: a second enqueue with the same id while the first is known is a no-op. */
  jobId?: string;
  /** Run no earlier than this many milliseconds from now. */
  delayMs?: number;
  /** Run on a schedule instead of once; the schedule is keyed by `jobId` (required then). */
  repeat?: { everyMs: number } | { pattern: string; tz?: string };
  /** Attempts in all before the job is failed; default the kind's, else 1. */
  attempts?: number;
}

/** Asks for a job; resolves once the queue holds it (durable in Redis), not when it has run. */
export interface JobQueue {
  enqueue<P>(kind: JobKind<P>, payload: P, options?: JobOptions): Promise<void>;
  /** Several jobs of one kind in one round trip. */
  enqueueAll<P>(kind: JobKind<P>, jobs: ReadonlyArray<{ payload: P; options?: JobOptions }>): Promise<void>;
  /** Withdraws a job that has not run yet, or a repeating schedule, by its `jobId`; no-op when there is none. */
  forget(kind: JobKind<unknown>, jobId: string): Promise<void>;
}

/** The states of a queued job {@link JobDepths} counts: what waits, runs, waits for its time, or failed. */
export const JOB_STATES = ['waiting', 'active', 'delayed', 'failed'] as const;
export type JobState = (typeof JOB_STATES)[number];

/** How many jobs each lane holds in each state, read from the queue (a metrics scrape asks). */
export interface JobDepths {
  depths(): Promise<Record<JobLane, Record<JobState, number>>>;
}

/**
 * One kind of job, declared by the module that owns its rule (the outbox owns delivery, the sweep
 * owns healing): its name, lane, payload schema (checked when the job is taken, since Redis is outside
 * the process) and handler. A handler that throws is retried with backoff up to `attempts`.
 */
export interface JobKind<P> {
  name: string;
  lane: JobLane;
  payload: z.ZodType<P>;
  handle(payload: P): Promise<unknown>;
  /** Default attempts; default 1. */
  attempts?: number;
  /** First retry delay, doubling; default 500 ms. */
  backoffMs?: number;
}

/** Two job kinds were declared under one name. */
export class DuplicateJobKindError extends KazmaError {
  constructor(name: string) {
    super('job_kind_duplicate', `a job kind named "${name}" is already registered`);
  }
}

/** A job arrived for a kind this process does not know (a newer process enqueued it). */
export class UnknownJobKindError extends KazmaError {
  constructor(name: string) {
    super('job_kind_unknown', `no job kind "${name}" is registered in this process`);
  }
}

/** The job kinds this process can run, by name. */
export class JobKinds {
  readonly #kinds = new Map<string, JobKind<unknown>>();

  register<P>(kind: JobKind<P>): this {
    if (this.#kinds.has(kind.name)) throw new DuplicateJobKindError(kind.name);
    this.#kinds.set(kind.name, kind as JobKind<unknown>);
    return this;
  }

  get(name: string): JobKind<unknown> {
    const kind = this.#kinds.get(name);
    if (!kind) throw new UnknownJobKindError(name);
    return kind;
  }

  /** Runs a job as a worker took it: payload checked against the kind's schema, then handled. */
  async run(name: string, data: unknown): Promise<unknown> {
    const kind = this.get(name);
    return kind.handle(kind.payload.parse(data));
  }
}
