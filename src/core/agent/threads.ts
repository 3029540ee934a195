import { eq, sql } from 'drizzle-orm';
import type { ChatRef } from '../chat/ref.ts';
import type { Db } from '../db/client.ts';
import { chatThreads } from '../db/schema/chat.ts';

/** The agent thread id of a chat at a generation: `<ChatRef>#<generation>`. */
export function threadIdOf(chat: ChatRef, generation: number): string {
  return `${chat}#${generation}`;
}

/**
 * Which LangGraph thread a chat is on. `/new` moves a chat to a fresh thread by bumping its
 * generation; the old thread's checkpoints stay (history), they are simply no longer used.
 */
export class ThreadStore {
  readonly #db: Db;

  constructor(db: Db) {
    this.#db = db;
  }

  /** The chat's current thread id (generation 0 when the chat never ran /new). */
  async current(chat: ChatRef): Promise<string> {
    const rows = await this.#db.select({ generation: chatThreads.generation }).from(chatThreads).where(eq(chatThreads.chat, chat)).limit(1);
    return threadIdOf(chat, rows[0]?.generation ?? 0);
  }

  /**
   * Moves the chat to a new thread and returns its id.
   * Statement: INSERT (chat, 1) ON CONFLICT (chat) DO UPDATE SET generation = generation + 1 RETURNING.
   * Invariant: concurrent calls get distinct generations.
   */
  async next(chat: ChatRef): Promise<string> {
    const rows = await this.#db
      .insert(chatThreads)
      .values({ chat, generation: 1 })
      .onConflictDoUpdate({ target: chatThreads.chat, set: { generation: sql`${chatThreads.generation} + 1`, updatedAt: sql`now()` } })
      .returning({ generation: chatThreads.generation });
    return threadIdOf(chat, rows[0]!.generation);
  }
}
