import { pgTable, text, timestamp } from 'drizzle-orm/pg-core';

/**
 * The people Kazma has welcomed in a direct chat (core/chat/intake/first-welcome.ts): a row is taken by the
 * first process to insert it, so a person's first direct message is welcomed once across processes and
 * restarts, however long they stay silent afterwards.
 */
export const welcomedPeople = pgTable('welcomed_people', {
  /** `<platform>:<user id>`, as in `access.users`. */
  user: text('user_ref').primaryKey(),
  welcomedAt: timestamp('welcomed_at', { withTimezone: true }).notNull(),
});
