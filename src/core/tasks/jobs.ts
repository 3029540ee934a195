import { z } from 'zod';
import type { JobKind } from '../jobs/index.ts';

/**
 * A task job that throws (its turn stopped by a shutdown, the database away for a moment) is tried
 * again, on any worker; each handler starts from the task row, so a retry continues where it stopped.
 */
const RETRIED = { attempts: 5, backoffMs: 2_000 } as const;

/** What the task jobs call back into. */
export interface TaskJobHandlers {
  run(taskId: string): Promise<void>;
  continueAfter(gateId: string, expired: boolean): Promise<void>;
  collect(parentId: string): Promise<void>;
}

/**
 * `task.run`: a worker runs (or, after another worker died, continues) a task. Only the id travels
 * through Redis; the row is the truth. Its job id is the task id, so a task is queued once.
 */
export function taskRunJob(handlers: TaskJobHandlers): JobKind<{ taskId: string }> {
  return {
    name: 'task.run',
    lane: 'swarm',
    payload: z.object({ taskId: z.string().min(1) }),
    handle: ({ taskId }) => handlers.run(taskId),
    ...RETRIED,
  };
}

/** `task.continue`: a question the task asked was decided (or expired); any worker resumes it. */
export function taskContinueJob(handlers: TaskJobHandlers): JobKind<{ gateId: string; expired: boolean }> {
  return {
    name: 'task.continue',
    lane: 'swarm',
    payload: z.object({ gateId: z.string().min(1), expired: z.boolean() }),
    handle: ({ gateId, expired }) => handlers.continueAfter(gateId, expired),
    ...RETRIED,
  };
}

/** `task.collect`: a subtask ended; when all of a parent's have, the parent combines their results. */
export function taskCollectJob(handlers: TaskJobHandlers): JobKind<{ taskId: string }> {
  return {
    name: 'task.collect',
    lane: 'swarm',
    payload: z.object({ taskId: z.string().min(1) }),
    handle: ({ taskId }) => handlers.collect(taskId),
    ...RETRIED,
  };
}
