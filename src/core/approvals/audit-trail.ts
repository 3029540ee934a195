import { and, asc, desc, eq, gt, lt, ne, type SQL } from 'drizzle-orm';
import { type Db, decisionAudit } from '../db/index.ts';

/** One attempt on a gate as the audit trail shows it. */
export interface GateAttempt {
  /** The audit row's id: later attempts have larger ones (a page's cursor). */
  id: number;
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
 * refusals, expiries and supersessions, at most `limit`, optionally of one outcome or one gate, newest
 * first. A page: `before` an attempt's id, the newest older than it; `after` one, the oldest newer than
 * it (still returned newest first).
 */
export async function gateAttempts(
  db: Db,
  filter: { limit: number; outcome?: string; gateId?: string; before?: number; after?: number },
): Promise<GateAttempt[]> {
  const t = decisionAudit;
  // The `requested` row says a question was asked: not an attempt to decide it (the export shows it).
  const where: SQL[] = [eq(t.kind, 'gate'), ne(t.outcome, 'requested')];
  if (filter.outcome) where.push(eq(t.outcome, filter.outcome));
  if (filter.gateId) where.push(eq(t.subjectId, filter.gateId));
  if (filter.before !== undefined) where.push(lt(t.id, filter.before));
  const newer = filter.before === undefined && filter.after !== undefined;
  if (newer) where.push(gt(t.id, filter.after!));
  const rows = await db
    .select()
    .from(t)
    .where(and(...where))
    .orderBy(newer ? asc(t.id) : desc(t.id))
    .limit(filter.limit);
  if (newer) rows.reverse();
  return rows.map((row) => {
    const who = row.actor?.operator ?? row.actor?.displayName ?? row.actor?.id;
    return {
      id: row.id,
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
