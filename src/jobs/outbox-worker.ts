import type { Queue, Worker } from 'bullmq';
import type { SurfaceRegistry } from '../core/chat/surfaces.ts';
import type { Db } from '../core/db/index.ts';
import type { Logger } from '../core/log/index.ts';
import { deliverOutbox, recoverOutbox, type OutboxDispatcher } from '../core/outbox/index.ts';
import { createQueue, createWorker, QUEUE_NAMES, type QueueConnection } from './queues.ts';

interface OutboxJob {
  id: string;
}

export interface OutboxWorkerOptions {
  db: Db;
  surfaces: SurfaceRegistry;
  queue: QueueConnection;
  concurrency: number;
  logger: Logger;
}

/**
 * Delivers outbox rows through BullMQ: one job per row with job id = row id (a second dispatch of
 * the same row is a no-op), retried with backoff. The row's own compare-and-set is what guarantees
 * a single send; the job id only saves work.
 */
export class OutboxWorker implements OutboxDispatcher {
  readonly #queue: Queue;
  readonly #worker: Worker;

  constructor(private readonly options: OutboxWorkerOptions) {
    this.#queue = createQueue(QUEUE_NAMES.outbox, options.queue);
    this.#worker = createWorker(
      QUEUE_NAMES.outbox,
      async (job) => deliverOutbox(options.db, options.surfaces, (job.data as OutboxJob).id),
      options.queue,
      options.concurrency,
    );
    this.#worker.on('failed', (job, error) => options.logger.warn({ outbox: job?.data.id, attempt: job?.attemptsMade, err: error.message }, 'outbox delivery failed'));
    this.#worker.on('error', (error) => options.logger.error({ err: error.message }, 'outbox worker error'));
  }

  async dispatch(ids: string[]): Promise<void> {
    if (ids.length === 0) return;
    await this.#queue.addBulk(
      ids.map((id) => ({
        name: 'deliver',
        data: { id },
        opts: { jobId: id, attempts: 8, backoff: { type: 'exponential', delay: 500 }, removeOnComplete: true, removeOnFail: 1000 },
      })),
    );
  }

  /**
   * At start and on every sweep: rows stuck mid-send longer than `sendingStaleMs` become `unknown`
   * (never re-sent blindly); rows still pending are dispatched (the job id makes a repeat a no-op).
   */
  async recover(sendingStaleMs = 0): Promise<void> {
    const { pending, unknown } = await recoverOutbox(this.options.db, { sendingStaleMs });
    if (unknown.length) this.options.logger.warn({ ids: unknown }, 'outbox deliveries interrupted by a stop are marked unknown, not re-sent');
    await this.dispatch(pending);
  }

  async close(): Promise<void> {
    await this.#worker.close();
    await this.#queue.close();
  }
}
