import { sql } from 'drizzle-orm';
import { bigserial, check, index, jsonb, pgTable, text, timestamp } from 'drizzle-orm/pg-core';
import type { StoredActor } from './approvals.ts';

/**
 * What a decision is about: an approval gate (`approval_gates`) or a question with fixed answers
 * (`decision_questions`). The same words name their cards' owners in the outbox.
 */
export const DECISION_AUDIT_KINDS = ['gate', 'question'] as const;
export type DecisionAuditKind = (typeof DECISION_AUDIT_KINDS)[number];

/**
 * Every attempt to decide a gate or a question, whatever came of it: won, lost (with the state it
 * found), refused, unknown; for gates also expired and superseded. The decision's own compare-and-set
 * statement writes the row of each attempt it ran (core/decisions/compare-and-set.ts).
 */
export const decisionAudit = pgTable(
  'decision_audit',
  {
    id: bigserial('id', { mode: 'number' }).primaryKey(),
    kind: text('kind', { enum: DECISION_AUDIT_KINDS }).notNull(),
    /** The gate's id (kind `gate`) or the question's (kind `question`). */
    subjectId: text('subject_id').notNull(),
    actor: jsonb('actor').$type<StoredActor>(),
    platform: text('platform'),
    decision: text('decision'),
    outcome: text('outcome').notNull(),
    detail: text('detail'),
    at: timestamp('at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    check('decision_audit_kind_valid', sql`${t.kind} in ('gate','question')`),
    index('decision_audit_subject_idx').on(t.kind, t.subjectId),
  ],
);
