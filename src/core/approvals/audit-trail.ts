import { and, desc, eq, ne, type SQL } from 'drizzle-orm';
import { type Db, decisionAudit } from '../db/index.ts';

/** One attempt on a gate as the audit trail shows it. */
export interface GateAttempt {
  gateId: string;
  /** The operator's name when the attempt was an operator's, else their display name or id. */
  who?: string;
  platform?: string;
  decision?: string;
  outcome: string;
  detail?: string;
  at: Date;
}

/**
 * The newest attempts on approval gates (table `decision_audit`, kind `gate`): winners, losers,
 * refusals, expiries and supersessions, at most `limit`, optionally of one outcome or one gate.
 */
export async function gateAttempts(
  db: Db,
  filter: { limit: number; outcome?: string; gateId?: string },
): Promise<GateAttempt[]> {
  const t = decisionAudit;
  // The `requested` row says a question was asked: not an attempt to decide it (the export shows it).
  const where: SQL[] = [eq(t.kind, 'gate'), ne(t.outcome, 'requested')];
  if (filter.outcome) where.push(eq(t.outcome, filter.outcome));
  if (filter.gateId) where.push(eq(t.subjectId, filter.gateId));
  const rows = await db
    .select()
    .from(t)
    .where(and(...where))
    .orderBy(desc(t.id))
    .limit(filter.limit);
  return rows.map((row) => {
    const who = row.actor?.operator ?? row.actor?.displayName ?? row.actor?.id;
    return {
      gateId: row.subjectId,
      ...(who && { who }),
      ...(row.platform && { platform: row.platform }),
      ...(row.decision && { decision: row.decision }),
      outcome: row.outcome,
      ...(row.detail && { detail: row.detail }),
      at: row.at,
    };
  });
}
