// Progress, not liveness: a process can heart-beat for hours while its turn hangs inside one model
// call. Every model call and tool call stamps the row of the work it belongs to as it begins and as it
// ends, so the run supervisor sees a hung call as no progress.
import { and, eq, sql } from 'drizzle-orm';
import type { Db } from '../db/index.ts';
import { inbox } from '../db/schema/chat.ts';
import { tasks } from '../db/schema/tasks.ts';
import type { Logger } from '../log/index.ts';

/** Called by the agent's nodes at each step of a run on `threadId`; never throws, never waits. */
export type ProgressSink = (threadId: string) => void;

/** Options for {@link progressStamps}. */
export interface ProgressStampsOptions {
  db: Db;
  logger?: Logger;
  /** At most one write per thread this often (a burst of tool calls is one sign of life). Default 1 s. */
  minGapMs?: number;
}

/**
 * The sink that writes `progress_at`: on the task for a task's thread (`task:<id>`), else on the
 * running inbox event of the thread's chat (`<chat>#<generation>`).
 */
export function progressStamps({ db, logger, minGapMs = 1_000 }: ProgressStampsOptions): ProgressSink {
  const last = new Map<string, number>();
  return (threadId) => {
    const now = Date.now();
    if (now - (last.get(threadId) ?? 0) < minGapMs) return;
    last.set(threadId, now);
    if (last.size > 10_000) last.clear();
    void stamp(db, threadId).catch((error: unknown) => logger?.warn({ err: error, threadId }, 'could not record a run\'s progress'));
  };
}

async function stamp(db: Db, threadId: string): Promise<void> {
  if (threadId.startsWith('task:')) {
    await db.update(tasks).set({ progressAt: sql`now()` }).where(and(eq(tasks.threadId, threadId), eq(tasks.state, 'running')));
    return;
  }
  const hash = threadId.lastIndexOf('#');
  if (hash <= 0) return;
  await db.update(inbox).set({ progressAt: sql`now()` }).where(and(eq(inbox.chat, threadId.slice(0, hash)), eq(inbox.state, 'running')));
}
