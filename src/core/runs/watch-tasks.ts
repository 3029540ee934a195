import { and, eq, gte, lte } from 'drizzle-orm';
import { type ChatRef, ellipsis } from '../surface/index.ts';
import { type Db, tasks } from '../db/index.ts';
import { ago, FAILURE_LOOKBACK_MS, type Finding, type WatchedKind } from './watch.ts';

/** What the task watcher needs of the tasks module to act on a decision. */
export interface TaskActions {
  retry(taskId: string): Promise<{ ok: true } | { ok: false; reason: string }>;
  cancel(taskId: string): Promise<{ ok: true } | { ok: false; reason: string }>;
}

/**
 * Swarm tasks: running without progress (a model call that hangs included) → stalled; queued with no
 * worker taking it → stuck; failed → failed.
 */
export function watchTasks(db: Db, actions: TaskActions): WatchedKind {
  return {
    kind: 'task',
    tables: ['tasks'],
    actions: ['retry', 'cancel'],
    async scan({ now, stallAfterMs }) {
      const before = ago(now, stallAfterMs);
      const [running, queued, failed] = await Promise.all([
        db
          .select()
          .from(tasks)
          .where(and(eq(tasks.state, 'running'), lte(tasks.progressAt, before))),
        db
          .select()
          .from(tasks)
          .where(and(eq(tasks.state, 'queued'), lte(tasks.progressAt, before))),
        db
          .select()
          .from(tasks)
          .where(and(eq(tasks.state, 'failed'), gte(tasks.updatedAt, ago(now, FAILURE_LOOKBACK_MS)))),
      ]);
      const finding = (
        row: typeof tasks.$inferSelect,
        problem: Finding['problem'],
        since: Date,
        what: string,
      ): Finding => ({
        workId: row.id,
        problem,
        since,
        detail: `"${clip(row.goal)}" — ${what}`,
        ...(row.originChat && { chat: row.originChat as ChatRef }),
      });
      return [
        ...running.map((row) =>
          finding(row, 'stalled', row.progressAt, 'no model or tool call has begun or ended since'),
        ),
        ...queued.map((row) =>
          finding(row, 'stuck', row.progressAt, 'queued, and no worker has taken it up (is a worker running?)'),
        ),
        ...failed.map((row) =>
          finding(row, 'failed', row.updatedAt, `failed: ${clip(row.error ?? 'no reason recorded')}`),
        ),
      ];
    },
    async act(action, workId) {
      const outcome = action === 'retry' ? await actions.retry(workId) : await actions.cancel(workId);
      return outcome.ok
        ? `task ${workId}: ${action === 'retry' ? 'queued again' : 'cancelled'}`
        : `task ${workId}: ${outcome.reason}`;
    },
  };
}

export function clip(text: string, max = 120): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return ellipsis(flat, max);
}
