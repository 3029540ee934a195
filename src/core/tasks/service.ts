// Background (swarm) tasks: a goal the agent works on in a thread of its own, on any worker process.
// The task row says where it stands; the runner and its checkpoint hold the conversation; the outbox
// carries the status card and the answer to the origin chat, each once.
import { resumeOf } from '../approvals/index.ts';
import type { ChatRef, Actor } from '../surface/index.ts';
import type { Db } from '../db/index.ts';
import { actorFromStored, storedActor } from '../decisions/index.ts';
import type { JobKind } from '../jobs/index.ts';
import { postOwnedCards } from '../outbox/index.ts';
import { taskCard } from './card.ts';
import type { TasksOptions } from './options.ts';
import { TASK_OWNER, TaskEnds, taskRun, taskTurnId } from './task-ends.ts';
import { taskCollectJob, taskContinueJob, taskRunJob } from './jobs.ts';
import { getTask, insertTask, newTaskId, subtasksOf, taskIdOfThread } from './store.ts';
import { requeueTasks } from './requeue.ts';
import { FINAL_TASK_STATES, transitionTask, type TaskRow } from './transition.ts';

export type { TasksOptions } from './options.ts';

interface StartInput {
  goal: string;
  origin?: ChatRef;
  requester: Actor;
  subtasks?: readonly string[];
}

/** What a task's start wrote, as plain JSON (a command's journal keeps it): its id, its card rows, its subtasks. */
export type RecordedTask = { taskId: string; cards: string[]; children: string[] };

export class Tasks {
  readonly #o: TasksOptions;
  readonly runJob: JobKind<{ taskId: string }>;
  readonly continueJob: JobKind<{ gateId: string; expired: boolean }>;
  readonly collectJob: JobKind<{ taskId: string }>;
  readonly #ends: TaskEnds;

  constructor(options: TasksOptions) {
    this.#o = options;
    this.runJob = taskRunJob(this);
    this.continueJob = taskContinueJob(this);
    this.collectJob = taskCollectJob(this);
    this.#ends = new TaskEnds(options, this.collectJob);
  }

  /**
   * Records a task, posts its status card to the origin chat, and queues it for a worker. With
   * `subtasks`, each is a task of its own, run in parallel; the parent waits for all of them and then
   * runs once to combine their results into one answer.
   */
  async start(input: StartInput): Promise<TaskRow> {
    const { task, ...recorded } = await this.#o.db.transaction((tx) => this.record(tx, input));
    await this.launch(recorded);
    return task;
  }

  /** {@link start}'s rows (the task, its subtasks, its card), written on `db` (a command's transaction). */
  async record(db: Db, input: StartInput): Promise<RecordedTask & { task: TaskRow }> {
    const id = newTaskId();
    const requester = storedActor(input.requester, this.#o.operatorName(input.requester));
    const origin = input.origin && { originChat: input.origin };
    const subtasks = input.subtasks ?? [];
    const task = await insertTask(db, {
      id,
      goal: input.goal,
      requester,
      ...origin,
      ...(subtasks.length > 0 && { state: 'waiting_subtasks' as const }),
    });
    const children: string[] = [];
    for (const goal of subtasks)
      children.push((await insertTask(db, { id: newTaskId(), goal, requester, parentId: id, ...origin })).id);
    const cards = input.origin
      ? await postOwnedCards(db, { kind: TASK_OWNER, id }, taskCard(task), [input.origin])
      : [];
    return { task, taskId: id, cards, children };
  }

  /**
   * What {@link start} does once its rows committed: sends the card, queues the task's jobs. Keyed by the
   * rows (a card row is sent once, a job id is its task's), so doing it again queues nothing new.
   */
  async launch({ taskId, cards, children }: RecordedTask): Promise<void> {
    await this.#ends.dispatch(cards);
    if (children.length === 0) await this.#o.jobs.enqueue(this.runJob, { taskId }, { jobId: taskId });
    else
      await this.#o.jobs.enqueueAll(
        this.runJob,
        children.map((child) => ({ payload: { taskId: child }, options: { jobId: child } })),
      );
  }

  /**
   * The `task.collect` job, queued whenever a subtask ends: once every subtask has ended, the parent
   * runs with their results (a re-run after a crash continues the same turn).
   */
  async collect(parentId: string): Promise<void> {
    const parent = await getTask(this.#o.db, parentId);
    if (parent?.state !== 'waiting_subtasks' && parent?.state !== 'running') return;
    const children = await subtasksOf(this.#o.db, parentId);
    if (children.length === 0 || children.some((child) => !FINAL_TASK_STATES.includes(child.state))) return;
    const running =
      parent.state === 'running'
        ? parent
        : await transitionTask(this.#o.db, {
            id: parentId,
            from: 'waiting_subtasks',
            to: 'running',
            patch: { attempts: parent.attempts + 1 },
          });
    if (!running) return;
    if (running !== parent) await this.#ends.editCard(running);
    const results = children.map(
      (child, i) =>
        `${i + 1}. ${child.goal} — ` +
        (child.state === 'done'
          ? `done: ${child.result ?? ''}`
          : `${child.state}${child.error ? `: ${child.error}` : ''}`),
    );
    const text =
      `${running.goal}\n\nThe subtasks have ended. Their results:\n${results.join('\n')}\n\nCombine them ` +
      `into one answer.`;
    await this.#ends.after(
      running.id,
      await this.#o.runner.turn(taskRun(running), {
        actor: actorFromStored(running.requester),
        text,
        turnId: taskTurnId(running),
      }),
    );
  }

  /** The `task.run` job: runs the task, or continues it where a worker that died left it. */
  async run(taskId: string): Promise<void> {
    const task = await getTask(this.#o.db, taskId);
    if (!task) return;
    // Ended, but the announcement may not have gone out.
    if (task.state === 'done' || task.state === 'failed') return this.#ends.announce(task);
    if (task.state !== 'queued' && task.state !== 'running') return;
    const running = await transitionTask(this.#o.db, {
      id: task.id,
      from: task.state,
      to: 'running',
      patch: { attempts: task.attempts + 1 },
    });
    if (!running) return;
    if (task.state === 'queued') await this.#ends.editCard(running);
    const result = await this.#o.runner.turn(taskRun(running), {
      actor: actorFromStored(running.requester),
      text: running.goal,
      turnId: taskTurnId(running),
    });
    await this.#ends.after(running.id, result);
  }

  /** The `task.continue` job: the question the task waits on was decided or expired; resume it here. */
  async continueAfter(gateId: string, expired: boolean): Promise<void> {
    const gate = await this.#o.broker.get(gateId);
    const taskId = gate && taskIdOfThread(gate.threadId);
    const task = taskId && (await getTask(this.#o.db, taskId));
    if (!gate || !task) return;
    const running =
      task.state === 'waiting_approval'
        ? await transitionTask(this.#o.db, { id: task.id, from: 'waiting_approval', to: 'running' })
        : task.state === 'running'
          ? task
          : undefined;
    if (!running) return; // cancelled: its question was withdrawn with it
    if (running !== task) await this.#ends.editCard(running);
    const run = taskRun(running);
    const result = expired
      ? await this.#o.runner.resumeExpired(gate, { run })
      : gate.decision && (gate.state === 'claimed' || gate.state === 'resuming')
        ? await this.#o.runner.resumeClaimed(gate, resumeOf(gate, gate.decision), {
            alreadyResuming: gate.state === 'resuming',
            run,
          })
        : undefined;
    if (result) await this.#ends.after(task.id, result);
  }

  /**
   * Cancels a task that has not ended: a drive of it running in this process is stopped, a question it waits
   * on is withdrawn. Returns the row, or why not.
   */
  async cancel(taskId: string): Promise<{ ok: true; task: TaskRow } | { ok: false; reason: string }> {
    const task = await getTask(this.#o.db, taskId);
    if (!task) return { ok: false, reason: `there is no task ${taskId}` };
    if (FINAL_TASK_STATES.includes(task.state))
      return { ok: false, reason: `task ${taskId} has already ended (${task.state})` };
    const cancelled = await transitionTask(this.#o.db, {
      id: task.id,
      from: task.state,
      to: 'cancelled',
      patch: { finishedAt: this.#o.clock.now() },
    });
    if (!cancelled) return this.cancel(taskId); // it moved meanwhile: look again
    // Running here: it stops now (its model call cut off, its shell killed), not at its drive's end.
    this.#o.runner.stop(task.threadId);
    await this.#o.broker.supersede(task.threadId, 'the task was cancelled');
    await this.#ends.editCard(cancelled);
    for (const child of await subtasksOf(this.#o.db, task.id))
      if (!FINAL_TASK_STATES.includes(child.state)) await this.cancel(child.id);
    // One subtask cancelled on its own: its parent goes on with what the others found.
    if (cancelled.parentId) await this.#o.jobs.enqueue(this.collectJob, { taskId: cancelled.parentId });
    return { ok: true, task: cancelled };
  }

  /**
   * Retry (a person's decision on the task's incident card): a failed task is queued again; a queued or
   * running one that stalled gets a fresh job, which continues it from its checkpoint on any worker (a
   * worker still holding its thread's lease keeps the new job waiting until that lease lapses).
   */
  async retry(taskId: string): Promise<{ ok: true } | { ok: false; reason: string }> {
    const task = await getTask(this.#o.db, taskId);
    if (!task) return { ok: false, reason: `there is no task ${taskId}` };
    if (task.state === 'failed') {
      const queued = await transitionTask(this.#o.db, {
        id: task.id,
        from: 'failed',
        to: 'queued',
        patch: { error: null, finishedAt: null, retries: task.retries + 1 },
      });
      if (!queued) return this.retry(taskId);
      await this.#ends.editCard(queued);
    } else if (task.state !== 'queued' && task.state !== 'running') {
      return { ok: false, reason: `task ${taskId} is ${task.state.replace('_', ' ')}` };
    }
    await this.#o.jobs.enqueue(
      this.runJob,
      { taskId },
      { jobId: `${taskId}-retry-${task.attempts}-${this.#o.clock.now().getTime()}` },
    );
    return { ok: true };
  }

  /** Every task that waits for a worker has its job again (requeue.ts says when and why). */
  requeue(options: { onlyQueued?: boolean } = {}): Promise<number> {
    return requeueTasks(this.#o, { run: this.runJob, collect: this.collectJob }, options);
  }

  get(taskId: string): Promise<TaskRow | undefined> {
    return getTask(this.#o.db, taskId);
  }
}
