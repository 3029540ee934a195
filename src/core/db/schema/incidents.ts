import { sql } from 'drizzle-orm';
import { check, index, pgTable, text, timestamp, uniqueIndex } from 'drizzle-orm/pg-core';

/** The kinds of long work the run supervisor watches; each has its own threshold (`runs.stall_after.<kind>`). */
export const WORK_KINDS = ['task', 'turn', 'scheduled', 'gate', 'outbox', 'mcp'] as const;
export type WorkKind = (typeof WORK_KINDS)[number];

/** What is wrong: no progress within the threshold, in one state too long, or ended in failure. */
export const PROBLEMS = ['stalled', 'stuck', 'failed'] as const;
export type Problem = (typeof PROBLEMS)[number];

/** open → recovered (the work moved again by itself) | decided (a person chose Retry, Cancel or Dismiss). */
export const INCIDENT_STATES = ['open', 'recovered', 'decided'] as const;
export type IncidentState = (typeof INCIDENT_STATES)[number];

/**
 * One incident per episode of trouble in one work item. `since` is the moment the trouble began (the
 * last progress, the entry into the bad state), so the same episode is never opened twice — not by
 * two supervisors at once, not after a person dismissed it — while a new episode opens a new incident.
 * Its cards are a decision question (`question_id`), set once, after the incident row exists.
 */
export const runIncidents = pgTable(
  'run_incidents',
  {
    id: text('id').primaryKey(),
    workKind: text('work_kind', { enum: WORK_KINDS }).notNull(),
    workId: text('work_id').notNull(),
    problem: text('problem', { enum: PROBLEMS }).notNull(),
    since: timestamp('since', { withTimezone: true }).notNull(),
    detail: text('detail').notNull(),
    /** The chat the work started from, when it has one. */
    chat: text('chat'),
    state: text('state', { enum: INCIDENT_STATES }).notNull().default('open'),
    questionId: text('question_id'),
    decision: text('decision'),
    openedAt: timestamp('opened_at', { withTimezone: true }).notNull().defaultNow(),
    closedAt: timestamp('closed_at', { withTimezone: true }),
  },
  (t) => [
    check('run_incidents_state_valid', sql`${t.state} in ('open','recovered','decided')`),
    uniqueIndex('run_incidents_episode_uq').on(t.workKind, t.workId, t.since),
    uniqueIndex('run_incidents_one_open_uq').on(t.workKind, t.workId).where(sql`${t.state} = 'open'`),
    index('run_incidents_state_idx').on(t.state),
  ],
);
