import { and, eq, sql } from 'drizzle-orm';
import { type Db, tasks, type TaskState } from '../db/index.ts';
import { KazmaError } from '../errors.ts';

export type TaskRow = typeof tasks.$inferSelect;
/** Columns a transition may set besides the state. */
export type TaskPatch = Partial<
  Pick<typeof tasks.$inferInsert, 'result' | 'error' | 'attempts' | 'retries' | 'finishedAt'>
>;

/** The only moves a task makes. `running → running` is a worker taking up a task whose worker died. */
export const TASK_MOVES: Readonly<Record<TaskState, readonly TaskState[]>> = {
  queued: ['running', 'waiting_subtasks', 'cancelled', 'failed'],
  running: ['running', 'waiting_approval', 'done', 'failed', 'cancelled'],
  waiting_approval: ['running', 'failed', 'cancelled'],
  // All its subtasks ended: the parent runs once more to combine their results.
  waiting_subtasks: ['running', 'failed', 'cancelled'],
  done: [],
  // A person chose Retry on the task's incident card: it is queued again and runs from its checkpoint.
  failed: ['queued'],
  cancelled: [],
};

export const FINAL_TASK_STATES: readonly TaskState[] = ['done', 'failed', 'cancelled'];

/** A move the task state machine does not have (a bug in the caller, not a lost race). */
export class IllegalTaskMoveError extends KazmaError {
  constructor(from: TaskState, to: TaskState) {
    super(
      'illegal_task_transition',
      `A task cannot move from ${from} to ${to}; legal from ${from}: ${TASK_MOVES[from].join(', ') || 'none (final)'}.`,
    );
  }
}

/**
 * Moves one task from `from` to `to` by compare-and-set; nothing else writes the state column.
 *
 * Inputs: task id, the state the caller believes it is in, the next state, other columns to set.
 * Output: the updated row, or undefined when the task is not in `from` (cancelled meanwhile, another
 * worker moved it) — the caller then does nothing.
 * Invariants: only TASK_MOVES; one `UPDATE … WHERE id = $1 AND state = $from RETURNING *`, so of
 * concurrent callers exactly one moves it; every move stamps `progress_at`.
 */
export async function transitionTask(
  db: Db,
  move: { id: string; from: TaskState; to: TaskState; patch?: TaskPatch },
): Promise<TaskRow | undefined> {
  if (!TASK_MOVES[move.from].includes(move.to)) throw new IllegalTaskMoveError(move.from, move.to);
  const [row] = await db
    .update(tasks)
    .set({ ...move.patch, state: move.to, updatedAt: sql`now()`, progressAt: sql`now()` })
    .where(and(eq(tasks.id, move.id), eq(tasks.state, move.from)))
    .returning();
  return row;
}
