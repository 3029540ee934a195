import { boolean, index, pgTable, text, timestamp } from 'drizzle-orm/pg-core';

/**
 * Signed-in sessions of the operators' web page (`/ui`). In the database, not in a process's memory, so
 * every process behind one address agrees on who is signed in, and a restart signs nobody out. Only
 * digests are kept: the cookie's secret and the API token it was opened with are never stored.
 */
export const uiSessions = pgTable(
  'ui_sessions',
  {
    /** SHA-256 (hex) of the cookie's random secret. */
    id: text('id').primaryKey(),
    /** The operator signed in; null for the shared read-only `http.api_token`. */
    operator: text('operator'),
    /**
     * SHA-256 (hex) of the API token used to sign in: a session whose token is no longer configured
     * (rotated) is refused, so rotating a token signs its holder out everywhere.
     */
    tokenDigest: text('token_digest').notNull(),
    readOnly: boolean('read_only').notNull(),
    /** The CSRF token every state-changing request of this session must carry. */
    csrf: text('csrf').notNull(),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    expiresAt: timestamp('expires_at', { withTimezone: true }).notNull(),
  },
  (t) => [index('ui_sessions_expires_idx').on(t.expiresAt)],
);
