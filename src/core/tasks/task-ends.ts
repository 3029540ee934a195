// How a task's drive ends: failed, waiting for a person, or done with an answer; its status card edited and
// its answer announced in the origin chat, each once. Also the task's run and turn names.
import type { DriveResult } from '../agent/index.ts';
import type { JobKind } from '../jobs/index.ts';
import { editOwnedCards } from '../outbox/index.ts';
import type { RunRef } from '../runs/index.ts';
import type { ChatRef } from '../surface/index.ts';
import { taskCard } from './card.ts';
import type { TasksOptions } from './options.ts';
import { getTask, touchTask } from './store.ts';
import { FINAL_TASK_STATES, transitionTask, type TaskRow } from './transition.ts';

/** Owner name of task status cards in the outbox. */
export const TASK_OWNER = 'task';

export class TaskEnds {
  readonly #o: TasksOptions;
  readonly #collectJob: JobKind<{ taskId: string }>;

  constructor(options: TasksOptions, collectJob: JobKind<{ taskId: string }>) {
    this.#o = options;
    this.#collectJob = collectJob;
  }

  /** After a drive: failed, waiting for a person, or done with an answer — unless it was cancelled meanwhile. */
  async after(taskId: string, result: DriveResult): Promise<void> {
    await touchTask(this.#o.db, taskId);
    const task = await getTask(this.#o.db, taskId);
    // Cancelled while this drive ran: a question it asked since is withdrawn too.
    if (task?.state === 'cancelled') await this.#o.broker.supersede(task.threadId, 'the task was cancelled');
    if (task?.state !== 'running') return;
    let moved: TaskRow | undefined;
    if (!result.ok)
      moved = await transitionTask(this.#o.db, {
        id: taskId,
        from: 'running',
        to: 'failed',
        patch: { error: result.error, finishedAt: this.#o.clock.now() },
      });
    else if ((await this.#o.runner.waitingOn(task.threadId)).length > 0)
      moved = await transitionTask(this.#o.db, { id: taskId, from: 'running', to: 'waiting_approval' });
    else {
      // A model that failed still leaves a ⚠️ reply in the thread; the task says it failed, not "done".
      const { replies, answered } = await this.#o.runner.turnAnswer(task.threadId, taskTurnId(task));
      const answer = replies.join('\n\n') || '(the model gave no answer)';
      moved = answered
        ? await transitionTask(this.#o.db, {
            id: taskId,
            from: 'running',
            to: 'done',
            patch: { result: answer, finishedAt: this.#o.clock.now() },
          })
        : await transitionTask(this.#o.db, {
            id: taskId,
            from: 'running',
            to: 'failed',
            patch: {
              error: (replies.at(-1) ?? 'no model answered').replace(/^⚠️\s*/u, ''),
              finishedAt: this.#o.clock.now(),
            },
          });
    }
    if (!moved) return;
    await this.editCard(moved);
    await this.announce(moved);
    if (moved.parentId && FINAL_TASK_STATES.includes(moved.state))
      await this.#o.jobs.enqueue(this.#collectJob, { taskId: moved.parentId });
  }

  /** The answer (or the failure) in the origin chat, once per turn: the reply row is keyed by the task's turn. */
  async announce(task: TaskRow): Promise<void> {
    // A subtask's answer goes into its parent's, not to the chat.
    if (!task.originChat || task.parentId || (task.state !== 'done' && task.state !== 'failed')) return;
    const text =
      task.state === 'done'
        ? `✅ Task ${task.id} is done:\n\n${task.result ?? ''}`
        : `⚠️ Task ${task.id} failed: ${task.error ?? 'unknown error'}`;
    await this.#o.replies.deliver(task.originChat as ChatRef, [{ key: `task-${taskTurnId(task)}`, text }]);
  }

  async editCard(task: TaskRow): Promise<void> {
    await this.dispatch(await editOwnedCards(this.#o.db, { kind: TASK_OWNER, id: task.id }, taskCard(task)));
  }

  async dispatch(ids: string[]): Promise<void> {
    await this.#o.outbox
      .dispatch(ids)
      .catch((error: unknown) =>
        this.#o.logger?.warn({ err: error, ids }, 'outbox dispatch failed; the sweep will retry'),
      );
  }
}

/** A task's run: its own thread; questions asked in its origin chat; its words gathered into one answer. */
export function taskRun(task: TaskRow): RunRef {
  return { threadId: task.threadId, ...(task.originChat && { origin: task.originChat as ChatRef }), deliverTo: [] };
}

/**
 * The turn a task's run is: the task itself, and after each Retry a new one (the failed turn is over;
 * re-running its id would only continue it to the same end). A worker that died mid-turn continues it.
 */
export function taskTurnId(task: TaskRow): string {
  return task.retries === 0 ? task.id : `${task.id}-retry-${task.retries}`;
}
