import { integer, pgTable, text, timestamp } from 'drizzle-orm/pg-core';

/**
 * One row per MCP server Kazma knows of: where its connection stands, its last (masked) error and when
 * the sweep tries it again. Written by the MCP manager; read by `/config tools list`, `kazma mcp list`
 * and (later) the run supervisor. Configuration lives in kazma.yaml and the settings table, never here.
 */
export const mcpServers = pgTable('mcp_servers', {
  name: text('name').primaryKey(),
  state: text('state', { enum: ['running', 'failed', 'stopped', 'disabled'] }).notNull(),
  lastError: text('last_error'),
  /** Failed starts in a row; 0 once it runs. */
  attempts: integer('attempts').notNull().default(0),
  nextRetryAt: timestamp('next_retry_at', { withTimezone: true }),
  /** When the current run of failures began (the run supervisor's `since`); null while it runs. */
  failingSince: timestamp('failing_since', { withTimezone: true }),
  toolCount: integer('tool_count').notNull().default(0),
  /** Last sign of life: a start, a listing, a call. */
  progressAt: timestamp('progress_at', { withTimezone: true }),
  updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
});
