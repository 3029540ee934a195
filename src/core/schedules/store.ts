import { randomBytes } from 'node:crypto';
import { and, asc, eq, sql } from 'drizzle-orm';
import { type Db, schedules, type ScheduleState } from '../db/index.ts';

export type ScheduleRow = typeof schedules.$inferSelect;

/** `jb_` and 8 random base64url characters: short enough to type in `/jobs cancel`. */
export function newScheduleId(): string {
  return `jb_${randomBytes(6).toString('base64url')}`;
}

export async function insertSchedule(db: Db, row: typeof schedules.$inferInsert): Promise<ScheduleRow> {
  const [inserted] = await db.insert(schedules).values(row).returning();
  return inserted!;
}

export async function getSchedule(db: Db, id: string): Promise<ScheduleRow | undefined> {
  const [row] = await db.select().from(schedules).where(eq(schedules.id, id));
  return row;
}

/** Scheduled jobs (optionally of one chat), soonest first, recurring ones last. */
export async function scheduledJobs(db: Db, chat?: string): Promise<ScheduleRow[]> {
  const scheduled = eq(schedules.state, 'scheduled');
  return db
    .select()
    .from(schedules)
    .where(chat ? and(scheduled, eq(schedules.chat, chat)) : scheduled)
    .orderBy(sql`${schedules.dueAt} asc nulls last`, asc(schedules.createdAt));
}

/**
 * Moves a schedule out of `scheduled` by compare-and-set (a reminder firing, anything cancelled).
 * Output: the row as moved, or undefined when it was not scheduled any more — so a reminder fires once
 * however many jobs or processes race for it, and a cancelled one never fires.
 */
export async function settleSchedule(
  db: Db,
  id: string,
  to: Exclude<ScheduleState, 'scheduled'>,
): Promise<ScheduleRow | undefined> {
  const fired = to === 'fired' ? { fires: sql`${schedules.fires} + 1`, lastFiredAt: sql`now()` } : {};
  const [row] = await db
    .update(schedules)
    .set({ state: to, updatedAt: sql`now()`, ...fired })
    .where(and(eq(schedules.id, id), eq(schedules.state, 'scheduled')))
    .returning();
  return row;
}

/** A recurring job fired (it stays scheduled); undefined when it was cancelled meanwhile. */
export async function countFiring(db: Db, id: string): Promise<ScheduleRow | undefined> {
  const [row] = await db
    .update(schedules)
    .set({ fires: sql`${schedules.fires} + 1`, lastFiredAt: sql`now()`, updatedAt: sql`now()` })
    .where(and(eq(schedules.id, id), eq(schedules.state, 'scheduled'), eq(schedules.kind, 'cron')))
    .returning();
  return row;
}
