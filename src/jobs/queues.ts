import { Queue, Worker, type ConnectionOptions, type Job } from 'bullmq';
// ioredis' options type and BullMQ's structural copy of it disagree on details; the values are the same.
import type { RedisOptions } from 'ioredis';

/** Queue names, one place. A prefix keeps several Kazma installs on one Redis apart. */
export const QUEUE_NAMES = { outbox: 'outbox', sweeps: 'sweeps' } as const;

export interface QueueConnection {
  connection: RedisOptions;
  prefix: string;
}

export function createQueue(name: string, { connection, prefix }: QueueConnection): Queue {
  return new Queue(name, { connection: connection as ConnectionOptions, prefix });
}

export function createWorker(name: string, processor: (job: Job) => Promise<unknown>, { connection, prefix }: QueueConnection, concurrency: number): Worker {
  // Stall detection is what recovers a job whose worker died; keep it well under a minute.
  return new Worker(name, processor, { connection: connection as ConnectionOptions, prefix, concurrency, lockDuration: 15_000, stalledInterval: 15_000, maxStalledCount: 1 });
}
