import { sql } from 'drizzle-orm';
import { bigserial, check, jsonb, pgTable, text, timestamp, uniqueIndex } from 'drizzle-orm/pg-core';
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
 * statement writes the row of each attempt it ran (core/decisions/compare-and-set.ts). An attempt is
 * one inbound event: the same event run again (taken up after a stop) is the same attempt, and its row is
 * not written twice; another event (a second tap, the command sent again) is another attempt.
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
    /**
     * The inbound event the attempt came from (its turn id, `<platform>:<event id>`); null for an attempt
     * that has none (the HTTP API, a sweep's expiry), each of which is its own attempt.
     */
    eventKey: text('event_key'),
  },
  (t) => [
    check('decision_audit_kind_valid', sql`${t.kind} in ('gate','question')`),
    // One row per attempt: an event's attempt on a subject is written once (NULLs are distinct, so rows
    // without an event are never held back). Also the index a subject's audit is read by.
    uniqueIndex('decision_audit_event_idx').on(t.kind, t.subjectId, t.eventKey),
  ],
);
