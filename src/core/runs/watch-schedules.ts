import { and, eq, lte } from 'drizzle-orm';
import type { ChatRef } from '../surface/index.ts';
import { type Db, schedules } from '../db/index.ts';
import { clip } from './watch-tasks.ts';
import { ago, type WatchedKind } from './watch.ts';

/** What the schedule watcher needs to act on a decision. */
export interface ScheduleActions {
  fire(id: string): Promise<void>;
  cancel(id: string): Promise<boolean>;
}

/**
 * Scheduled jobs: a reminder still waiting well past its time did not fire (its BullMQ job was lost or
 * no process runs the schedules lane). A cron job's firings start tasks, which are watched as tasks.
 */
export function watchSchedules(db: Db, actions: ScheduleActions): WatchedKind {
  return {
    kind: 'scheduled',
    tables: ['schedules'],
    actions: ['retry', 'cancel'],
    async scan({ now, stallAfterMs }) {
      const rows = await db
        .select()
        .from(schedules)
        .where(
          and(
            eq(schedules.state, 'scheduled'),
            eq(schedules.kind, 'reminder'),
            lte(schedules.dueAt, ago(now, stallAfterMs)),
          ),
        );
      return rows.map((row) => ({
        workId: row.id,
        problem: 'stuck' as const,
        since: row.dueAt!,
        chat: row.chat as ChatRef,
        detail: `reminder "${clip(row.text)}" was due and has not been sent`,
      }));
    },
    async act(action, workId) {
      if (action === 'retry') {
        await actions.fire(workId);
        return `reminder ${workId}: sent now`;
      }
      return (await actions.cancel(workId))
        ? `reminder ${workId}: cancelled`
        : `reminder ${workId}: was no longer scheduled`;
    },
  };
}
