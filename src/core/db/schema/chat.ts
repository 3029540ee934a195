import { sql } from 'drizzle-orm';
import { bigserial, check, index, integer, jsonb, pgTable, primaryKey, text, timestamp } from 'drizzle-orm/pg-core';

/** received → running → done | failed; `refused` marks an event from someone access control turned away. */
export const INBOX_STATES = ['received', 'running', 'done', 'failed', 'refused'] as const;
export type InboxState = (typeof INBOX_STATES)[number];

/**
 * Every inbound platform event, recorded (unique by the platform's own event id) before the platform is
 * told it arrived. It is the dedupe guard — a redelivery finds the row and is dropped — and the promise
 * that nothing taken in is lost: a row that is not `done` after a crash is finished at the next start.
 * `attempts` counts the times processing began, so an event that keeps killing the process is ended
 * with a warning instead of forever. Finished rows are pruned after `inbox.retention`.
 */
export const inbox = pgTable(
  'inbox',
  {
    platform: text('platform').notNull(),
    eventId: text('event_id').notNull(),
    chat: text('chat').notNull(),
    /** The InboundEvent as the adapter built it; null for refused events (nothing to replay). */
    event: jsonb('event'),
    state: text('state', { enum: INBOX_STATES }).notNull().default('received'),
    attempts: integer('attempts').notNull().default(0),
    /** The process instance working on it (state running); its heartbeat is updated_at. */
    owner: text('owner'),
    lastError: text('last_error'),
    /**
     * The turn's last sign of progress (a model call or a tool call began or ended): unlike the
     * heartbeat in updated_at, it stops moving when the turn hangs inside a call, so the run supervisor
     * can tell a stalled turn from a live process.
     */
    progressAt: timestamp('progress_at', { withTimezone: true }),
    receivedAt: timestamp('received_at', { withTimezone: true }).notNull().defaultNow(),
    /**
     * Arrival order: a chat's events are taken in this order. Not received_at: PGlite's clock ticks in
     * milliseconds (two events recorded in one tick tie), and now() is when a transaction began, not
     * when its row was written.
     */
    seq: bigserial('seq', { mode: 'number' }).notNull(),
    updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
    finishedAt: timestamp('finished_at', { withTimezone: true }),
  },
  (t) => [
    primaryKey({ name: 'inbox_platform_event_pk', columns: [t.platform, t.eventId] }),
    check('inbox_state_valid', sql`${t.state} in ('received','running','done','failed','refused')`),
    index('inbox_state_idx').on(t.state, t.updatedAt),
  ],
);

/**
 * The conversation generation of each chat: `/new` increments it, and the agent's thread id is
 * `<ChatRef>#<generation>`, so a fresh thread needs no deletion of the old checkpoints.
 * A chat without a row is at generation 0.
 */
export const chatThreads = pgTable('chat_threads', {
  chat: text('chat').primaryKey(),
  generation: integer('generation').notNull().default(0),
  updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
});
