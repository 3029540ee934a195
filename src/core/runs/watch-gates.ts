import { and, eq, gte, inArray, lte } from 'drizzle-orm';
import type { ChatRef } from '../surface/index.ts';
import { type Db, approvalGates } from '../db/index.ts';
import { ago, FAILURE_LOOKBACK_MS, type Finding, type WatchedKind } from './watch.ts';

/**
 * Approval gates. Waiting for a person is not a stall (a pending gate expires on its own); a gate is in
 * trouble when a decision was taken but the work has not resumed (claimed/resuming too long), when it
 * outlived its expiry without being expired, or when resuming it failed. Retry runs the approvals
 * reconciler, which resumes decided gates and expires overdue ones.
 */
export function watchGates(db: Db, reconcile: () => Promise<unknown>): WatchedKind {
  return {
    kind: 'gate',
    tables: ['approval_gates'],
    actions: ['retry'],
    async scan({ now, stallAfterMs }) {
      const before = ago(now, stallAfterMs);
      const [undone, overdue, failed] = await Promise.all([
        db
          .select()
          .from(approvalGates)
          .where(and(inArray(approvalGates.state, ['claimed', 'resuming']), lte(approvalGates.updatedAt, before))),
        db
          .select()
          .from(approvalGates)
          .where(and(eq(approvalGates.state, 'pending'), lte(approvalGates.expiresAt, before))),
        db
          .select()
          .from(approvalGates)
          .where(and(eq(approvalGates.state, 'error'), gte(approvalGates.updatedAt, ago(now, FAILURE_LOOKBACK_MS)))),
      ]);
      const finding = (
        row: typeof approvalGates.$inferSelect,
        problem: Finding['problem'],
        since: Date,
        what: string,
      ): Finding => ({
        workId: row.id,
        problem,
        since,
        detail: `${row.tool}: ${what}`,
        ...(row.originChat && { chat: row.originChat as ChatRef }),
      });
      return [
        ...undone.map((row) =>
          finding(row, 'stuck', row.updatedAt, `decided (${row.decision ?? '?'}) but the work has not resumed`),
        ),
        ...overdue.map((row) => finding(row, 'stuck', row.expiresAt, 'past its expiry, and not yet expired')),
        ...failed.map((row) =>
          finding(row, 'failed', row.updatedAt, `resuming failed: ${row.error ?? 'no reason recorded'}`),
        ),
      ];
    },
    async act(_action, workId) {
      await reconcile();
      return `approval ${workId}: the reconciler ran`;
    },
  };
}
