import { sql } from 'drizzle-orm';
import { check, index, integer, jsonb, pgTable, text, timestamp } from 'drizzle-orm/pg-core';
import type { StoredActor } from './approvals.ts';

export const SCHEDULE_KINDS = ['reminder', 'cron'] as const;
export type ScheduleKind = (typeof SCHEDULE_KINDS)[number];
/**
 * `scheduled` until a reminder fires (→ `fired`) or anything is cancelled (→ `cancelled`); a cron job stays
 * `scheduled`.
 */
export const SCHEDULE_STATES = ['scheduled', 'fired', 'cancelled'] as const;
export type ScheduleState = (typeof SCHEDULE_STATES)[number];

/**
 * One scheduled job: a one-shot reminder (`due_at`, the absolute UTC instant) or a recurring cron job
 * (`pattern` in `zone`) that runs a task. The delivery chat is captured when it is scheduled; the
 * person's own words are kept beside what they were read as.
 */
export const schedules = pgTable(
  'schedules',
  {
    id: text('id').primaryKey(),
    kind: text('kind', { enum: SCHEDULE_KINDS }).notNull(),
    state: text('state', { enum: SCHEDULE_STATES }).notNull().default('scheduled'),
    chat: text('chat').notNull(),
    requester: jsonb('requester').$type<StoredActor>().notNull(),
    /** The reminder's text, or the cron job's prompt. */
    text: text('text').notNull(),
    dueAt: timestamp('due_at', { withTimezone: true }),
    pattern: text('pattern'),
    zone: text('zone').notNull(),
    /** What the person wrote for the time ("tomorrow 9am", "بعد ١٠ دقائق"). */
    words: text('words').notNull(),
    fires: integer('fires').notNull().default(0),
    lastFiredAt: timestamp('last_fired_at', { withTimezone: true }),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    check('schedules_kind_valid', sql`${t.kind} in ('reminder','cron')`),
    check('schedules_state_valid', sql`${t.state} in ('scheduled','fired','cancelled')`),
    index('schedules_chat_idx').on(t.chat, t.state),
    index('schedules_due_idx').on(t.state, t.dueAt),
  ],
);
