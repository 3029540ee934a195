import { sql } from 'drizzle-orm';
import { bigserial, check, index, jsonb, pgTable, text, timestamp, uniqueIndex } from 'drizzle-orm/pg-core';
import type { StoredMessage } from '@langchain/core/messages';

/** Why a message left the agent's checkpoint: the context window moved past it, or /compact summarised it. */
export const ARCHIVE_REASONS = ['window', 'compact'] as const;

/**
 * Messages moved out of a thread's checkpoint, append-only, so nothing said is lost while the checkpoint
 * holds only the window the model sees (agent.context.max_tokens). `seq` orders a thread's messages as
 * they were said; the unique (thread_id, message_id) makes archiving idempotent when a node re-runs.
 */
export const threadTranscript = pgTable(
  'thread_transcript',
  {
    seq: bigserial('seq', { mode: 'number' }).primaryKey(),
    threadId: text('thread_id').notNull(),
    messageId: text('message_id').notNull(),
    message: jsonb('message').$type<StoredMessage>().notNull(),
    reason: text('reason', { enum: ARCHIVE_REASONS }).notNull(),
    archivedAt: timestamp('archived_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    uniqueIndex('thread_transcript_thread_message_uq').on(t.threadId, t.messageId),
    index('thread_transcript_thread_seq_idx').on(t.threadId, t.seq),
    check('thread_transcript_reason_valid', sql`${t.reason} in ('window', 'compact')`),
  ],
);

/** A row of {@link threadTranscript} as read back. */
export type TranscriptRow = typeof threadTranscript.$inferSelect;
