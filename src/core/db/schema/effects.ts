import { sql } from 'drizzle-orm';
import { check, jsonb, pgTable, primaryKey, text, timestamp } from 'drizzle-orm/pg-core';

/** A tool call's result as the model saw it (ToolRegistry.execute), kept in its effect receipt. */
export type ExecuteResult = { ok: true; output: string } | { ok: false; error: string; refused?: boolean };

/** The two states of an effect receipt; nothing else is ever written to `state`. */
export const EFFECT_STATES = ['started', 'finished'] as const;

/**
 * One row per side-effecting tool call (see core/effects/journal.ts). Written as `started` before the
 * tool acts and turned `finished` (with the result) before the graph moves on, so after a crash a
 * `started` row means "the effect may or may not have happened" and is never run again.
 * The model's tool_call id is unique only within a thread, hence the composite key.
 */
export const effectReceipts = pgTable(
  'effect_receipts',
  {
    threadId: text('thread_id').notNull(),
    callId: text('call_id').notNull(),
    turnId: text('turn_id'),
    tool: text('tool').notNull(),
    /** sha256 (hex) of the canonical JSON of the arguments; a replay must present the same hash. */
    argsHash: text('args_hash').notNull(),
    state: text('state', { enum: EFFECT_STATES }).notNull().default('started'),
    /** The ExecuteResult the model saw; null until finished. */
    result: jsonb('result').$type<ExecuteResult>(),
    startedAt: timestamp('started_at', { withTimezone: true }).notNull().defaultNow(),
    finishedAt: timestamp('finished_at', { withTimezone: true }),
  },
  (t) => [
    primaryKey({ name: 'effect_receipts_thread_call_pk', columns: [t.threadId, t.callId] }),
    check('effect_receipts_state_valid', sql`${t.state} in ('started', 'finished')`),
    // A finished receipt without its result could not be replayed; refuse to store one.
    check(
      'effect_receipts_finished_has_result',
      sql`(${t.state} = 'finished') = (${t.result} is not null and ${t.finishedAt} is not null)`,
    ),
  ],
);

/** A row of {@link effectReceipts} as read back. */
export type EffectReceipt = typeof effectReceipts.$inferSelect;

/**
 * The command journal (core/effects/command-journal.ts): one row per state-changing chat command that
 * took effect, keyed by the inbound event it came from (its turn id, `<platform>:<event id>`) and the
 * command's effect name. Written in the transaction that makes the command's change, so a command taken
 * up again after a crash finds it and replays `result` (what it decided the first time) instead of acting
 * twice.
 */
export const commandEffects = pgTable(
  'command_effects',
  {
    eventKey: text('event_key').notNull(),
    command: text('command').notNull(),
    /** What the effect returned (ids it made, a target it chose); given back on a replay. */
    result: jsonb('result').notNull(),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [primaryKey({ name: 'command_effects_event_command_pk', columns: [t.eventKey, t.command] })],
);
