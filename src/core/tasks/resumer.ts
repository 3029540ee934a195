import type { GateResumer, ResumingRunner } from '../approvals/index.ts';
import type { JobKind, JobQueue } from '../jobs/index.ts';
import { taskIdOfThread } from './store.ts';

/**
 * What approvals resume through: a chat's question is resumed here and now, by the runner; a task's
 * question is handed to any worker as a `task.continue` job, so a decision on Slack never runs a
 * background task inside the chat process that happened to receive the tap.
 */
export function taskAwareResumer(
  runner: GateResumer & ResumingRunner,
  jobs: JobQueue,
  continueJob: JobKind<{ gateId: string; expired: boolean }>,
): GateResumer & ResumingRunner {
  return {
    waitingOn: (threadId) => runner.waitingOn(threadId),
    // A task's run cut short goes on through its own job (BullMQ's stall check, the run supervisor).
    unfinished: async (threadId) => !taskIdOfThread(threadId) && (await runner.unfinished(threadId)),
    resumeClaimed: (gate, resume, options?: { alreadyResuming?: boolean }) =>
      taskIdOfThread(gate.threadId)
        ? jobs.enqueue(continueJob, { gateId: gate.gateId, expired: false })
        : runner.resumeClaimed(gate, resume, options),
    resumeExpired: (gate) =>
      taskIdOfThread(gate.threadId)
        ? jobs.enqueue(continueJob, { gateId: gate.gateId, expired: true })
        : runner.resumeExpired(gate),
  };
}
