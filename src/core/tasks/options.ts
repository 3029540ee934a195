// What the tasks service is built from (service.ts, task-ends.ts).
import type { ApprovalBroker } from '../approvals/index.ts';
import type { TurnRunner } from '../agent/index.ts';
import type { Clock } from '../clock.ts';
import type { Db } from '../db/index.ts';
import type { JobQueue } from '../jobs/index.ts';
import type { Logger } from '../log/index.ts';
import type { OutboxDispatcher, Reply } from '../outbox/index.ts';
import type { Actor, ChatRef } from '../surface/index.ts';

/** Options for Tasks (service.ts). */
export interface TasksOptions {
  db: Db;
  runner: Pick<TurnRunner, 'turn' | 'turnAnswer' | 'waitingOn' | 'resumeClaimed' | 'resumeExpired' | 'stop'>;
  broker: Pick<ApprovalBroker, 'get' | 'supersede'>;
  jobs: JobQueue;
  outbox: OutboxDispatcher;
  replies: { deliver(chat: ChatRef, replies: readonly Reply[]): Promise<void> };
  operatorName: (actor: Actor) => string | undefined;
  /** Where `finished_at` and a retry's job id read now. */
  clock: Clock;
  logger?: Logger;
}
