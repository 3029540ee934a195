import { jsonb, pgTable, text, timestamp } from 'drizzle-orm/pg-core';

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
