import { bigserial, jsonb, pgTable, text, timestamp } from 'drizzle-orm/pg-core';
import type { StoredActor } from './approvals.ts';

/**
 * Runtime settings changed from chat (e.g. `/config tools toggle`). kazma.yaml is the starting point and
 * is never rewritten; a row here overrides its key.
 */
export const settings = pgTable('settings', {
  key: text('key').primaryKey(),
  value: jsonb('value').notNull(),
  updatedBy: text('updated_by'),
  updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
});

/** Every `/config` attempt: who, where, what, and whether it changed something or was refused. */
export const configAudit = pgTable('config_audit', {
  id: bigserial('id', { mode: 'number' }).primaryKey(),
  actor: jsonb('actor').$type<StoredActor>().notNull(),
  chat: text('chat').notNull(),
  command: text('command').notNull(),
  outcome: text('outcome', { enum: ['changed', 'refused', 'read'] }).notNull(),
  detail: text('detail'),
  at: timestamp('at', { withTimezone: true }).notNull().defaultNow(),
});
