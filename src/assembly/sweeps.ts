// The periodic sweep's steps, in order, and the one job that runs them (every runs.sweep_interval, once
// across processes). A step that fails is logged and tried again at the next sweep.
import type { Clock } from '../core/clock.ts';
import { SWEEP_SCHEDULE, sweepJob, type SweepStep } from '../core/jobs/index.ts';
import type { Logger } from '../core/log/index.ts';
import type { Base } from './base.ts';
import type { Modules } from './modules.ts';

/** A row in `sending` this long belongs to no live process (no send takes this long). */
export const SENDING_STALE_MS = 5 * 60_000;

/** Owed deliveries sent, and sends no live process can still be making marked "delivery unknown". */
export function recoverDeliveries(base: Pick<Base, 'outbox'>): Promise<void> {
  return base.outbox.recover({ sendingBefore: new Date(Date.now() - SENDING_STALE_MS) });
}

export function registerSweeps(base: Base, modules: Modules, o: { retentionMs: number; clock: Clock; logger: Logger }) {
  const { outbox, kinds } = base;
  const { clock, logger } = o;
  const sweeps: SweepStep[] = [
    modules.approvals.sweep,
    { name: 'outbox', run: () => recoverDeliveries(base) },
    { name: 'outbox retention', run: () => outbox.prune(new Date(clock.now().getTime() - o.retentionMs)) },
    modules.chat.sweep,
    modules.runs.sweep,
    modules.mcp.sweep,
    modules.questions.sweep,
    modules.agent.sweep,
    modules.pairing.sweep,
  ];
  const failed = (step: string, error: unknown) =>
    base.deps.dbFailed(error, () =>
      logger.warn(
        { step, err: error instanceof Error ? error.message : String(error) },
        'a sweep step failed; the next sweep tries again',
      ),
    );
  kinds.register(sweepJob(() => sweeps, logger, failed));
}

/** Schedules the sweep (idempotent by its job id: every process asks, one schedule exists). */
export async function scheduleSweeps(base: Base, everyMs: number): Promise<void> {
  await base.jobs.enqueue(base.kinds.get('sweep'), {}, { jobId: SWEEP_SCHEDULE, repeat: { everyMs } });
}
