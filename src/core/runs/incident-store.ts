import { randomBytes } from 'node:crypto';
import { and, desc, eq, isNull, sql } from 'drizzle-orm';
import { type Db, runIncidents, type WorkKind } from '../db/index.ts';
import type { Finding } from './watch.ts';

export type IncidentRow = typeof runIncidents.$inferSelect;

/**
 * Opens an incident for one episode of trouble, unless one is open for the item or this episode was
 * already opened (and maybe dismissed). Both rules are unique indexes, so two supervisors sweeping at
 * once open it once. Output: the new row, or undefined when nothing was opened.
 */
export async function openIncident(db: Db, kind: WorkKind, finding: Finding): Promise<IncidentRow | undefined> {
  const [row] = await db
    .insert(runIncidents)
    .values({
      id: `inc_${randomBytes(6).toString('base64url')}`,
      workKind: kind,
      workId: finding.workId,
      problem: finding.problem,
      since: finding.since,
      detail: finding.detail,
      chat: finding.chat ?? null,
    })
    .onConflictDoNothing()
    .returning();
  return row;
}

/**
 * Points an open incident at its question, once: compare-and-set on `question_id IS NULL` and `open`,
 * inside the transaction that writes the question and its card rows, so an incident gets one set of
 * cards however many supervisors (or restarts) try, and none once it was closed (its buttons would do nothing).
 */
export async function attachQuestion(tx: Db, id: string, questionId: string): Promise<boolean> {
  const rows = await tx
    .update(runIncidents)
    .set({ questionId })
    .where(and(eq(runIncidents.id, id), isNull(runIncidents.questionId), eq(runIncidents.state, 'open')))
    .returning({ id: runIncidents.id });
  return rows.length === 1;
}

/** Moves an open incident to `recovered` or `decided` (compare-and-set on `open`); undefined when it was not open. */
export async function closeIncident(
  db: Db,
  id: string,
  to: { state: 'recovered' } | { state: 'decided'; decision: string },
): Promise<IncidentRow | undefined> {
  const [row] = await db
    .update(runIncidents)
    .set({ ...to, closedAt: sql`now()` })
    .where(and(eq(runIncidents.id, id), eq(runIncidents.state, 'open')))
    .returning();
  return row;
}

/**
 * The decision `question` made on incident `id`, for its owner to act on. Input: the incident, the
 * question that decided it, and its decision. Output: the incident as closed by this decision — now
 * (compare-and-set on `open`), or earlier by this same question when a stop or a failed action cut the
 * action short (the question's effect is then still owed, and the action, keyed by its work's state,
 * runs again). Undefined when the incident was not open and no decision of this question closed it:
 * it recovered, or it is unknown. Invariant: an incident is closed once; its decision never changes.
 */
export async function incidentDecidedBy(
  db: Db,
  id: string,
  question: { id: string; decision: string },
): Promise<IncidentRow | undefined> {
  const closed = await closeIncident(db, id, { state: 'decided', decision: question.decision });
  if (closed) return closed;
  const [earlier] = await db
    .select()
    .from(runIncidents)
    .where(
      and(
        eq(runIncidents.id, id),
        eq(runIncidents.state, 'decided'),
        eq(runIncidents.questionId, question.id),
        eq(runIncidents.decision, question.decision),
      ),
    );
  return earlier;
}

export async function openIncidents(db: Db, kind?: WorkKind): Promise<IncidentRow[]> {
  const open = eq(runIncidents.state, 'open');
  return db
    .select()
    .from(runIncidents)
    .where(kind ? and(open, eq(runIncidents.workKind, kind)) : open)
    .orderBy(desc(runIncidents.openedAt));
}

/** Open incidents a crash left between their row and their cards. */
export async function incidentsWithoutCards(db: Db): Promise<IncidentRow[]> {
  return db
    .select()
    .from(runIncidents)
    .where(and(eq(runIncidents.state, 'open'), isNull(runIncidents.questionId)));
}
