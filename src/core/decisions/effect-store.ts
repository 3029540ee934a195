// The statements behind a decided question's owed effect. The decision itself writes `effect = 'owed'`
// (compare-and-set.ts, in the statement that decides); these find what is still owed, let one process
// take it over, and record it done.
import { and, asc, eq, lt, sql } from 'drizzle-orm';
import { type Db, decisionQuestions } from '../db/index.ts';

export type QuestionRow = typeof decisionQuestions.$inferSelect;

/** At most this many per recovery; the next sweep takes the rest. */
const BATCH = 100;

/**
 * Decided questions whose effect is still owed and untouched since `staleBefore`: their process stopped
 * (or their handler failed) before the effect was done. Younger ones may still be in a live process's hands.
 */
export async function owedEffects(db: Db, staleBefore: Date): Promise<QuestionRow[]> {
  return db
    .select()
    .from(decisionQuestions)
    .where(
      and(
        eq(decisionQuestions.effect, 'owed'),
        eq(decisionQuestions.state, 'decided'),
        lt(decisionQuestions.updatedAt, staleBefore),
      ),
    )
    .orderBy(asc(decisionQuestions.updatedAt))
    .limit(BATCH);
}

/**
 * Takes an owed effect over for this process, by compare-and-set.
 * Input: the row as it was listed (its id and updated_at) and the staleness bound it was listed under.
 * Output: the row (taken) or undefined (done since, or another process's sweep took it first).
 * Invariant: the takeover moves updated_at to now(), so of sweeps racing for one listed version exactly
 * one moves it, and the row is out of every sweep's reach again for a staleness wait.
 */
export async function takeOverEffect(
  db: Db,
  seen: { id: string; updatedAt: Date },
  staleBefore: Date,
): Promise<QuestionRow | undefined> {
  const [row] = await db
    .update(decisionQuestions)
    .set({ updatedAt: sql`now()` })
    .where(
      and(
        eq(decisionQuestions.id, seen.id),
        eq(decisionQuestions.effect, 'owed'),
        // PostgreSQL keeps microseconds, a JS Date milliseconds: compare at the precision both have.
        sql`date_trunc('milliseconds', ${decisionQuestions.updatedAt}) = ${seen.updatedAt.toISOString()}::timestamptz`,
        lt(decisionQuestions.updatedAt, staleBefore),
      ),
    )
    .returning();
  return row;
}

/** owed → done, after the handler acted (a row done meanwhile by another process stays as it is). */
export async function effectDone(db: Db, id: string): Promise<void> {
  await db
    .update(decisionQuestions)
    .set({ effect: 'done' })
    .where(and(eq(decisionQuestions.id, id), eq(decisionQuestions.effect, 'owed')));
}
