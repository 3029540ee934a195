import { and, eq, gte, inArray, isNull, lte, ne, or } from 'drizzle-orm';
import type { ChatRef } from '../surface/index.ts';
import { type Db, outbox } from '../db/index.ts';
import { getOutbox, moveOutbox } from '../outbox/index.ts';
import { ago, FAILURE_LOOKBACK_MS, type Finding, type WatchedKind } from './watch.ts';

/**
 * Outbound deliveries: pending too long → stuck; `unknown` (the process died while sending; never
 * re-sent blindly) and `failed` → failed. Question cards (incident cards among them) are left out: an
 * incident about an incident card would go to the same unreachable place. Retry puts a row back to
 * pending and sends it — a person's decision, so a possible duplicate is theirs to accept.
 */
export function watchOutbox(db: Db, dispatch: (ids: string[]) => Promise<void>): WatchedKind {
  const notQuestions = or(isNull(outbox.ownerKind), ne(outbox.ownerKind, 'question'));
  return {
    kind: 'outbox',
    tables: ['outbox'],
    actions: ['retry'],
    async scan({ now, stallAfterMs }) {
      const [pending, ended] = await Promise.all([
        db
          .select()
          .from(outbox)
          .where(and(eq(outbox.state, 'pending'), lte(outbox.createdAt, ago(now, stallAfterMs)), notQuestions)),
        db
          .select()
          .from(outbox)
          .where(
            and(
              inArray(outbox.state, ['unknown', 'failed']),
              gte(outbox.updatedAt, ago(now, FAILURE_LOOKBACK_MS)),
              notQuestions,
            ),
          ),
      ]);
      const finding = (
        row: typeof outbox.$inferSelect,
        problem: Finding['problem'],
        since: Date,
        what: string,
      ): Finding => ({
        workId: row.id,
        problem,
        since,
        detail: `a ${row.kind} to ${row.destination}: ${what}`,
        chat: row.destination as ChatRef,
      });
      return [
        ...pending.map((row) =>
          finding(
            row,
            'stuck',
            row.createdAt,
            `not delivered yet (${row.attempts} attempt(s)${row.lastError ? `; last error: ${row.lastError}` : ''})`,
          ),
        ),
        ...ended.map((row) =>
          finding(
            row,
            'failed',
            row.updatedAt,
            row.state === 'unknown'
              ? 'delivery unknown: the process stopped while sending it'
              : `delivery failed: ${row.lastError ?? 'no reason recorded'}`,
          ),
        ),
      ];
    },
    async act(_action, workId) {
      const row =
        (await moveOutbox(db, workId, 'unknown', 'pending')) ??
        (await moveOutbox(db, workId, 'failed', 'pending')) ??
        (await getOutbox(db, workId));
      if (row?.state !== 'pending') return `delivery ${workId}: ${row ? `already ${row.state}` : 'gone'}`;
      await dispatch([workId]);
      return `delivery ${workId}: sending again`;
    },
  };
}
