// Every job BullMQ holds is derived from rows in PostgreSQL, so when Redis forgets them (restarted empty,
// failed over, flushed) or a job failed while the database was down and was dropped, they are derived
// again: the sweep's schedule, reminders and cron schedules, the jobs of tasks that wait for a worker,
// deliveries left pending. Each by job id, so one Redis still holds is not doubled. /readyz says "jobs
// being restored" meanwhile.
import type { Logger } from '../core/log/index.ts';
import type { Base } from './base.ts';
import type { Modules } from './modules.ts';
import { recoverDeliveries, scheduleSweeps } from './sweeps.ts';

/** How often each process looks for the marker when nothing reconnected (a FLUSHALL keeps connections). */
export const MEMORY_CHECK_MS = 5_000;

export class JobsRestorer {
  readonly #base: Base;
  readonly #m: Modules;
  readonly #o: { sweepEveryMs: number; logger: Logger };
  #running: Promise<void> | undefined;
  #again = false;

  constructor(base: Base, m: Modules, options: { sweepEveryMs: number; logger: Logger }) {
    this.#base = base;
    this.#m = m;
    this.#o = options;
  }

  /** Restores the jobs; a call while a restore runs asks for one more after it (the loss may be newer). */
  restore(reason: string): Promise<void> {
    if (this.#running) {
      this.#again = true;
      return this.#running;
    }
    this.#running = this.#restore(reason).finally(() => {
      this.#running = undefined;
      if (this.#again) {
        this.#again = false;
        void this.restore(reason).catch(() => undefined);
      }
    });
    return this.#running;
  }

  /** /readyz's `jobs` check: fails while a restore runs. */
  readiness = async (): Promise<void> => {
    if (this.#running) throw new Error('jobs being restored from the database (redis had forgotten them)');
  };

  async #restore(reason: string): Promise<void> {
    const { logger } = this.#o;
    logger.info({ reason }, 'restoring the jobs redis held from the database');
    await scheduleSweeps(this.#base, this.#o.sweepEveryMs);
    const schedules = await this.#m.schedules.schedules.recover();
    const tasks = await this.#m.tasks.tasks.requeue();
    await recoverDeliveries(this.#base);
    await this.#m.approvals.reconciler.sweep();
    logger.info({ reason, schedules, tasks }, 'the jobs redis held are restored');
  }
}
