import { pgTable, text, timestamp } from 'drizzle-orm/pg-core';

/**
 * Who is running a thread's turn right now. A process takes the lease before it drives a thread and
 * renews it while the turn runs; another process may take it only once it has expired. So any process
 * may run a thread's next turn, and never two at once.
 */
export const threadLeases = pgTable('thread_leases', {
  threadId: text('thread_id').primaryKey(),
  owner: text('owner').notNull(),
  expiresAt: timestamp('expires_at', { withTimezone: true }).notNull(),
});
