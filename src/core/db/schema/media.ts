import { index, pgTable, text, timestamp } from 'drizzle-orm/pg-core';

/**
 * What a voice message or audio file was heard to say (core/media), kept once transcribed: a turn taken
 * up again after a crash — before its message reached the checkpoint — reads it here instead of asking
 * the transcription endpoint (a paid call) a second time. Removed after `media.retention`.
 */
export const mediaTranscripts = pgTable(
  'media_transcripts',
  {
    /** SHA-256 (hex) of the chat and the attachment's reference: the same file in the same chat. */
    key: text('key').primaryKey(),
    text: text('text').notNull(),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [index('media_transcripts_created_idx').on(t.createdAt)],
);

/**
 * Which bytes a file people sent turned out to be (core/media): its copy is kept under
 * `data_dir/files/<sha256>` before the model sees it, so a turn taken up again after a crash — before its
 * message reached the checkpoint — reads the same bytes there instead of downloading the file again.
 * Removed after `media.retention`, with the copies.
 */
export const mediaFiles = pgTable(
  'media_files',
  {
    /** SHA-256 (hex) of the chat and the attachment's reference, as `media_transcripts.key`. */
    key: text('key').primaryKey(),
    /** SHA-256 (hex) of the bytes: the name of their copy under data_dir/files. */
    sha256: text('sha256').notNull(),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [index('media_files_created_idx').on(t.createdAt)],
);
