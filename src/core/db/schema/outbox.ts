import { sql } from 'drizzle-orm';
import { bigserial, check, index, integer, jsonb, pgTable, text, timestamp } from 'drizzle-orm/pg-core';

/**
 * pending → sending → sent; a row found in `sending` after a crash becomes `unknown` (never re-sent blindly).
 * An edit overtaken by a newer edit of the same card is `superseded`: it is never sent, so a card cannot
 * go back to an older state when edits are delivered out of order (a retried edit behind a newer one).
 */
export const OUTBOX_STATES = ['pending', 'sending', 'sent', 'unknown', 'failed', 'superseded'] as const;
export type OutboxState = (typeof OUTBOX_STATES)[number];
export const OUTBOX_KINDS = ['card', 'edit', 'message'] as const;
export type OutboxKind = (typeof OUTBOX_KINDS)[number];

/**
 * Every outbound delivery that must survive a crash (approval cards, their edits, incident cards,
 * reminders). Written in the same transaction as what caused it; a worker delivers each row once.
 */
export const outbox = pgTable(
  'outbox',
  {
    id: text('id').primaryKey(),
    kind: text('kind', { enum: OUTBOX_KINDS }).notNull(),
    destination: text('destination').notNull(),
    /**
     * What kind of question owns it ('gate', 'question', 'reply'…); with owner_id, finds every card of one question.
     */
    ownerKind: text('owner_kind'),
    ownerId: text('owner_id'),
    /** For edits: the outbox id of the card being edited. */
    targetId: text('target_id'),
    payload: jsonb('payload').notNull(),
    state: text('state', { enum: OUTBOX_STATES }).notNull().default('pending'),
    /** The platform's reference to the delivered message (MessageRef). */
    messageRef: jsonb('message_ref'),
    attempts: integer('attempts').notNull().default(0),
    lastError: text('last_error'),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    /**
     * Write order: a card's newest edit is the one written last. Not created_at: PGlite's clock ticks in
     * milliseconds (two edits written in one tick tie), and now() is when a transaction began.
     */
    seq: bigserial('seq', { mode: 'number' }).notNull(),
    updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
    sentAt: timestamp('sent_at', { withTimezone: true }),
  },
  (t) => [
    check('outbox_state_valid', sql`${t.state} in ('pending','sending','sent','unknown','failed','superseded')`),
    index('outbox_state_idx').on(t.state),
    index('outbox_owner_idx').on(t.ownerKind, t.ownerId),
    index('outbox_target_idx').on(t.targetId),
  ],
);
