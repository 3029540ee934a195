// Progress, not liveness: a process can heart-beat for hours while its turn hangs inside one model
// call. Every model call and tool call stamps the row of the work it belongs to as it begins and as it
// ends, so the run supervisor sees a hung call as no progress.
import { and, eq, sql } from 'drizzle-orm';
import { type Db, inbox, tasks } from '../db/index.ts';
import type { Logger } from '../log/index.ts';

/** Called by the agent's nodes at each step of a run on `threadId`; never throws, never waits. */
export type ProgressSink = (threadId: string) => void;

/** The sink, and how work that stamped its own row as it began says so (so the sink need not stamp it again). */
export interface ProgressStamps extends ProgressSink {
  /** A chat's inbox row was just taken: taking it stamped `progress_at`. */
  taken(chat: string): void;
}

/** Options for {@link progressStamps}. */
export interface ProgressStampsOptions {
  db: Db;
  logger?: Logger;
  /** At most one write per thread this often (a burst of tool calls is one sign of life). Default 1 s. */
  minGapMs?: number;
}

/**
 * The sink that writes `progress_at`: on the task for a task's thread (`task:<id>`), else on the
 * running inbox event of the thread's chat (`<chat>#<generation>`). At most one write per row per
 * `minGapMs`, counting the stamp a chat's row got when it was taken: a turn's first model call begins
 * right after that, and stamping again would only cost a statement per turn.
 */
export function progressStamps({ db, logger, minGapMs = 1_000 }: ProgressStampsOptions): ProgressStamps {
  /** When each row was stamped last, on the monotonic clock (a gap is elapsed time, not now). */
  const last = new Map<string, number>();
  const stamped = (row: string) => {
    last.set(row, performance.now());
    if (last.size > 10_000) last.clear();
  };
  const sink = (threadId: string) => {
    const row = rowOf(threadId);
    const at = row && last.get(row.key);
    if (!row || (at !== undefined && performance.now() - at < minGapMs)) return;
    stamped(row.key);
    void stamp(db, row).catch((error: unknown) =>
      logger?.warn({ err: error, threadId }, "could not record a run's progress"),
    );
  };
  return Object.assign(sink, { taken: (chat: string) => stamped(`chat:${chat}`) });
}

/** The row a thread's progress is stamped on: its task, or its chat's running inbox event. */
function rowOf(threadId: string): { key: string; task?: string; chat?: string } | undefined {
  if (threadId.startsWith('task:')) return { key: threadId, task: threadId };
  const hash = threadId.lastIndexOf('#');
  if (hash <= 0) return undefined;
  const chat = threadId.slice(0, hash);
  return { key: `chat:${chat}`, chat };
}

async function stamp(db: Db, row: { task?: string; chat?: string }): Promise<void> {
  if (row.task !== undefined)
    await db
      .update(tasks)
      .set({ progressAt: sql`now()` })
      .where(and(eq(tasks.threadId, row.task), eq(tasks.state, 'running')));
  else if (row.chat !== undefined)
    await db
      .update(inbox)
      .set({ progressAt: sql`now()` })
      .where(and(eq(inbox.chat, row.chat), eq(inbox.state, 'running')));
}
