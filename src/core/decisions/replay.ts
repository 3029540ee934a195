// An inbound event taken up again after a stop (the process died after its decision landed and before the
// event was marked done) is the same attempt, not a second one: its compare-and-set now loses — to itself —
// and its audit row already says how it landed. Such an attempt is not a loser and is told nothing ("You
// already decided this", posted for a tap the person made once, would be false).
import { and, eq, inArray } from 'drizzle-orm';
import { type Db, type DecisionAuditKind, decisionAudit } from '../db/index.ts';

/** Outcomes that mean the attempt moved the question (the decision, or one approval of several). */
const LANDED = ['won', 'counted'];

/**
 * Whether the attempt of event `eventKey` on question `id` (audit kind `kind`, the same word as its cards'
 * owner) already landed.
 */
export async function alreadyLanded(db: Db, attempt: { kind: string; id: string; eventKey: string }): Promise<boolean> {
  const [row] = await db
    .select({ outcome: decisionAudit.outcome })
    .from(decisionAudit)
    .where(
      and(
        eq(decisionAudit.kind, attempt.kind as DecisionAuditKind),
        eq(decisionAudit.subjectId, attempt.id),
        eq(decisionAudit.eventKey, attempt.eventKey),
        inArray(decisionAudit.outcome, LANDED),
      ),
    )
    .limit(1);
  return row !== undefined;
}
