import { sql } from 'drizzle-orm';
import { check, index, jsonb, pgTable, text, timestamp } from 'drizzle-orm/pg-core';
import type { StoredActor } from './approvals.ts';

/** open → decided (the first decision) or closed (withdrawn: the incident recovered, the run ended). */
export const QUESTION_STATES = ['open', 'decided', 'closed'] as const;
export type QuestionState = (typeof QUESTION_STATES)[number];

/** owed (set by the decision's own statement) → done (the owning module's handler has acted). */
export const QUESTION_EFFECTS = ['owed', 'done'] as const;

/** One answer a question offers, shown as a button. */
export interface QuestionOption {
  id: string;
  label: string;
  style: 'primary' | 'secondary' | 'danger';
}

/**
 * Questions with a fixed set of answers that any surface may settle, first decision wins: incident
 * cards (Retry / Cancel / Dismiss), clarify cards (which target did you mean?). Approval gates have
 * their own table (their resume lifecycle is longer) but share the same decision mechanism, and one
 * audit trail of attempts (`decision_audit`, decision-audit.ts).
 */
export const decisionQuestions = pgTable(
  'decision_questions',
  {
    id: text('id').primaryKey(),
    /** Which module owns it and acts on the decision ('incident', 'clarify', …). */
    kind: text('kind').notNull(),
    state: text('state', { enum: QUESTION_STATES }).notNull().default('open'),
    /** The chat the question came from, when it has one. */
    chat: text('chat'),
    title: text('title').notNull(),
    fields: jsonb('fields').$type<Array<{ label: string; value: string }>>().notNull().default([]),
    options: jsonb('options').$type<QuestionOption[]>().notNull(),
    /** The owning module's own reference (the incident id, the pending send). */
    subject: jsonb('subject'),
    decision: text('decision'),
    decidedBy: jsonb('decided_by').$type<StoredActor>(),
    decidedPlatform: text('decided_platform'),
    decidedAt: timestamp('decided_at', { withTimezone: true }),
    closedReason: text('closed_reason'),
    /**
     * What the decision still owes its owner: `owed` is written by the decision's compare-and-set (so no
     * stop can come between the two), `done` once the kind's handler has acted. Null: nothing was owed
     * (open, closed, or decided before this column existed: not guessed at).
     */
    effect: text('effect', { enum: QUESTION_EFFECTS }),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    check('decision_questions_state_valid', sql`${t.state} in ('open','decided','closed')`),
    check('decision_questions_effect_valid', sql`${t.effect} in ('owed','done')`),
    index('decision_questions_kind_idx').on(t.kind, t.state),
    // The recovery sweep's one question: which decisions still owe their effect (few, if any).
    index('decision_questions_effect_owed_idx').on(t.updatedAt).where(sql`${t.effect} = 'owed'`),
  ],
);
