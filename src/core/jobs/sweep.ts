// One repeating sweep for everything that heals itself: each module contributes named steps (expire and
// heal approval gates, re-dispatch the outbox, take up abandoned inbound events, prune old rows). The
// job scheduler is keyed by one id, so every process sharing the queues shares one schedule and each
// tick runs once, wherever a worker takes it.
import { z } from 'zod';
import type { Logger } from '../log/index.ts';
import type { JobKind } from './port.ts';

/** One named part of the sweep; a failing step is logged and the next still runs. */
export interface SweepStep {
  name: string;
  run(): Promise<unknown>;
}

/**
 * The `sweep` job kind, running `steps()` in order. `onStepError` decides what a failed step says (a
 * database outage is said once, not per step per sweep); default a warning per failure.
 */
export function sweepJob(
  steps: () => readonly SweepStep[],
  logger?: Logger,
  onStepError?: (step: string, error: unknown) => void,
): JobKind<Record<string, never>> {
  return {
    name: 'sweep',
    lane: 'sweeps',
    payload: z.object({}).strict() as unknown as z.ZodType<Record<string, never>>,
    async handle() {
      for (const step of steps()) {
        await step
          .run()
          .catch((error: unknown) =>
            onStepError
              ? onStepError(step.name, error)
              : logger?.warn(
                  { step: step.name, err: error instanceof Error ? error.message : String(error) },
                  'a sweep step failed; the next sweep tries again',
                ),
          );
      }
    },
  };
}

/** The schedule key of the sweep. */
export const SWEEP_SCHEDULE = 'sweep';
