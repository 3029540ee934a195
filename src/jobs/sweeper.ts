import type { Queue, Worker } from 'bullmq';
import type { Logger } from '../core/log/index.ts';
import { createQueue, createWorker, QUEUE_NAMES, type QueueConnection } from './queues.ts';

export interface SweeperOptions {
  queue: QueueConnection;
  /** runs.sweep_interval */
  everyMs: number;
  /** The work of one sweep (reconcile approvals, re-dispatch stuck outbox rows). */
  sweep: () => Promise<void>;
  logger: Logger;
}

/**
 * A BullMQ repeatable job: one sweep per interval across every Kazma process on this Redis (the job
 * scheduler is upserted by id, so several processes share one schedule and each tick runs once).
 */
export class Sweeper {
  readonly #queue: Queue;
  readonly #worker: Worker;

  constructor(private readonly options: SweeperOptions) {
    this.#queue = createQueue(QUEUE_NAMES.sweeps, options.queue);
    this.#worker = createWorker(QUEUE_NAMES.sweeps, () => options.sweep(), options.queue, 1);
    this.#worker.on('failed', (_job, error) => options.logger.warn({ err: error.message }, 'sweep failed'));
    this.#worker.on('error', (error) => options.logger.error({ err: error.message }, 'sweep worker error'));
  }

  async start(): Promise<void> {
    await this.#queue.upsertJobScheduler('sweep', { every: this.options.everyMs }, { name: 'sweep', opts: { removeOnComplete: true, removeOnFail: 100 } });
  }

  async close(): Promise<void> {
    await this.#worker.close();
    await this.#queue.close();
  }
}
