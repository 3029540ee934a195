import { mapChatMessagesToStoredMessages, mapStoredMessagesToChatMessages, type BaseMessage } from '@langchain/core/messages';
import { asc, eq } from 'drizzle-orm';
import type { Db } from '../db/client.ts';
import { threadTranscript, type ARCHIVE_REASONS } from '../db/schema/transcript.ts';

/** Why messages were archived. */
export type ArchiveReason = (typeof ARCHIVE_REASONS)[number];

/**
 * The append-only transcript of what left a thread's checkpoint (the `thread_transcript` table): the
 * window moved past it, or /compact summarised it. Nothing here is read back into a turn; it keeps
 * everything said, in order, while the checkpoint stays bounded.
 */
export class TranscriptArchive {
  readonly #db: Db;

  constructor(db: Db) {
    this.#db = db;
  }

  /**
   * Appends `messages` in their order.
   * Statement: one INSERT … ON CONFLICT (thread_id, message_id) DO NOTHING.
   * Invariant: a message is archived once; a node that re-runs after a crash (and archives the same
   * messages again) changes nothing, so `seq` keeps the order in which they were first archived.
   * Every message must have an id (the messages reducer gives every stored message one).
   */
  async append(threadId: string, messages: readonly BaseMessage[], reason: ArchiveReason): Promise<void> {
    if (messages.length === 0) return;
    const stored = mapChatMessagesToStoredMessages([...messages]);
    await this.#db
      .insert(threadTranscript)
      .values(messages.map((m, i) => ({ threadId, messageId: m.id!, message: stored[i]!, reason })))
      .onConflictDoNothing({ target: [threadTranscript.threadId, threadTranscript.messageId] });
  }

  /** A thread's archived messages, oldest first. */
  async read(threadId: string): Promise<Array<{ message: BaseMessage; reason: ArchiveReason }>> {
    const rows = await this.#db.select().from(threadTranscript).where(eq(threadTranscript.threadId, threadId)).orderBy(asc(threadTranscript.seq));
    const messages = mapStoredMessagesToChatMessages(rows.map((r) => r.message));
    return rows.map((r, i) => ({ message: messages[i]!, reason: r.reason }));
  }
}
