import { sql } from 'drizzle-orm';
import { index, pgTable, text, timestamp, uniqueIndex } from 'drizzle-orm/pg-core';

/**
 * People let in by DM pairing (`access.pairing`): a stranger's code, sent on by an operator with `/pair`.
 * They count as `access.users` (the file's list is never rewritten) until an operator removes them.
 */
export const pairedUsers = pgTable('paired_users', {
  /** `<platform>:<user id>`, as in `access.users`. */
  user: text('user_ref').primaryKey(),
  /** How the person showed when they asked (for lists; never used for access). */
  displayName: text('display_name'),
  /** The operator who paired them. */
  pairedBy: text('paired_by').notNull(),
  pairedAt: timestamp('paired_at', { withTimezone: true }).notNull().defaultNow(),
});

/**
 * Pairing codes given to strangers who wrote to Kazma in private. One live (unused) code per stranger: the
 * partial unique index makes a second issue find the first instead, across processes.
 */
export const pairingCodes = pgTable(
  'pairing_codes',
  {
    code: text('code').primaryKey(),
    /** `<platform>:<user id>` of the stranger it was given to. */
    user: text('user_ref').notNull(),
    displayName: text('display_name'),
    /** The private chat it was given in: where the stranger is told they are in. */
    chat: text('chat').notNull(),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    expiresAt: timestamp('expires_at', { withTimezone: true }).notNull(),
    /** Set once, by the `/pair` that used it; a used code is never accepted again. */
    usedAt: timestamp('used_at', { withTimezone: true }),
  },
  (t) => [
    uniqueIndex('pairing_codes_live_idx').on(t.user).where(sql`${t.usedAt} is null`),
    index('pairing_codes_expires_idx').on(t.expiresAt),
  ],
);

/**
 * One-time codes that make their sender an operator (`kazma init` issues one): the person sends it to the bot
 * in private, and their platform id is recorded as the operator `operator` (a name in access.operators), which
 * the access check honours as if kazma.yaml listed the id. The first sender wins; a code is used once.
 */
export const operatorClaims = pgTable(
  'operator_claims',
  {
    code: text('code').primaryKey(),
    /** The name in access.operators the sender becomes. */
    operator: text('operator').notNull(),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    expiresAt: timestamp('expires_at', { withTimezone: true }).notNull(),
    /** `<platform>:<user id>` of the person who sent it; set once. */
    claimedBy: text('claimed_by'),
    claimedAt: timestamp('claimed_at', { withTimezone: true }),
  },
  (t) => [index('operator_claims_claimed_by_idx').on(t.claimedBy)],
);
