import { integer, pgTable, primaryKey, text, timestamp } from 'drizzle-orm/pg-core';

/**
 * Inbound platform events already taken in, by the platform's own event id. The inbound pipeline
 * inserts here before acting, so a redelivery (a webhook retried, a reconnect replaying updates, a
 * restart) finds the row and is dropped. Old rows can be swept; a platform stops redelivering long
 * before a day has passed.
 */
export const processedEvents = pgTable(
  'processed_events',
  {
    platform: text('platform').notNull(),
    eventId: text('event_id').notNull(),
    receivedAt: timestamp('received_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [primaryKey({ name: 'processed_events_platform_event_pk', columns: [t.platform, t.eventId] })],
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
