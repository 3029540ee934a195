import {
  mapChatMessagesToStoredMessages,
  mapStoredMessagesToChatMessages,
  type BaseMessage,
} from '@langchain/core/messages';
import { asc, eq, sql } from 'drizzle-orm';
import { type Db, builtOnce, dialect, queryPrepared, threadTranscript, type ARCHIVE_REASONS } from '../../db/index.ts';

/** The rows of placeholder `rows` (a JSON array of {id, message}) inserted in their order. */
const appendStatement = () => sql`
  insert into ${threadTranscript} (thread_id, message_id, message, reason)
  select ${sql.placeholder('threadId')}::text, e.value->>'id', e.value->'message', ${sql.placeholder('reason')}::text
  from jsonb_array_elements(${sql.placeholder('rows')}::jsonb) with ordinality as e(value, n)
  order by e.n
  on conflict (thread_id, message_id) do nothing`;

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
   * Statement: one INSERT … SELECT over a JSON array … ON CONFLICT (thread_id, message_id) DO NOTHING,
   * its text built once (once a window is full, every turn archives its oldest turn: building a
   * many-row INSERT anew each time cost more than the insert).
   * Invariant: a message is archived once; a node that re-runs after a crash (and archives the same
   * messages again) changes nothing, so `seq` keeps the order in which they were first archived.
   * Every message must have an id (the messages reducer gives every stored message one).
   */
  async append(threadId: string, messages: readonly BaseMessage[], reason: ArchiveReason): Promise<void> {
    if (messages.length === 0) return;
    const stored = mapChatMessagesToStoredMessages([...messages]);
    const rows = JSON.stringify(messages.map((m, i) => ({ id: m.id!, message: stored[i]! })));
    const statement = builtOnce(this.#db, 'transcript.append', () => dialect.sqlToQuery(appendStatement()));
    await queryPrepared(this.#db, statement, { threadId, reason, rows });
  }

  /** A thread's archived messages, oldest first. */
  async read(threadId: string): Promise<Array<{ message: BaseMessage; reason: ArchiveReason }>> {
    const rows = await this.#db
      .select()
      .from(threadTranscript)
      .where(eq(threadTranscript.threadId, threadId))
      .orderBy(asc(threadTranscript.seq));
    const messages = mapStoredMessagesToChatMessages(rows.map((r) => r.message));
    return rows.map((r, i) => ({ message: messages[i]!, reason: r.reason }));
  }
}
