import { eq, sql, type SQL } from 'drizzle-orm';
import type { ChatRef } from '../surface/index.ts';
import { type Db, builtOnce, chatThreads } from '../db/index.ts';

/** The agent thread id of a chat at a generation: `<ChatRef>#<generation>`. */
export function threadIdOf(chat: ChatRef, generation: number): string {
  return `${chat}#${generation}`;
}

/**
 * {@link threadIdOf} the chat's current generation, in SQL: the chat's thread id read inside another statement
 * (thread-lease.ts).
 */
export function currentThreadIdSql(chat: SQL | ReturnType<typeof sql.placeholder>): SQL {
  return sql`${chat}::text || '#' || coalesce((select ${chatThreads.generation} from ${chatThreads} where
    ${chatThreads.chat} = ${chat}), 0)::text`;
}

/**
 * Which LangGraph thread a chat is on. `/new` moves a chat to a fresh thread by bumping its
 * generation; the old thread's checkpoints stay (history), they are simply no longer used.
 */
export class ThreadStore {
  readonly #db: Db;
  /**
   * Solo (only this process opens the database, and this store is its only writer of chat_threads): the
   * generations read or written so far, so a turn need not read its chat's thread again. Most recently
   * used last; the oldest are dropped beyond {@link REMEMBERED_CHATS}.
   */
  readonly #known: Map<ChatRef, number> | undefined;
  /** Calls of {@link next} so far, and those still under way. */
  #moves = 0;
  #pending = 0;

  constructor(db: Db, options: { solo?: boolean } = {}) {
    this.#db = db;
    this.#known = options.solo ? new Map() : undefined;
  }

  /** The chat's current thread id (generation 0 when the chat never ran /new). */
  async current(chat: ChatRef): Promise<string> {
    const known = this.#known?.get(chat);
    if (known !== undefined) return threadIdOf(chat, this.#remember(chat, known));
    const moves = this.#pending === 0 ? this.#moves : -1;
    const statement = builtOnce(this.#db, 'threads.current', (db) =>
      db
        .select({ generation: chatThreads.generation })
        .from(chatThreads)
        .where(eq(chatThreads.chat, sql.placeholder('chat')))
        .limit(1)
        .prepare('threads_current'),
    );
    const rows = await statement.execute({ chat });
    const generation = rows[0]?.generation ?? 0;
    // A /new under way when this read began, or begun since, may be newer than what it read: keep nothing.
    return threadIdOf(chat, moves === this.#moves ? this.#remember(chat, generation) : generation);
  }

  /**
   * Moves the chat to a new thread and returns its id.
   * Statement: INSERT (chat, 1) ON CONFLICT (chat) DO UPDATE SET generation = generation + 1 RETURNING.
   * Invariant: concurrent calls get distinct generations.
   */
  async next(chat: ChatRef): Promise<string> {
    this.#moves++;
    this.#pending++;
    let rows: Array<{ generation: number }>;
    try {
      rows = await this.#db
        .insert(chatThreads)
        .values({ chat, generation: 1 })
        .onConflictDoUpdate({
          target: chatThreads.chat,
          set: { generation: sql`${chatThreads.generation} + 1`, updatedAt: sql`now()` },
        })
        .returning({ generation: chatThreads.generation });
    } finally {
      this.#pending--;
    }
    return threadIdOf(chat, this.#remember(chat, rows[0]!.generation));
  }

  #remember(chat: ChatRef, generation: number): number {
    if (!this.#known) return generation;
    this.#known.delete(chat);
    this.#known.set(chat, generation);
    if (this.#known.size > REMEMBERED_CHATS) this.#known.delete(this.#known.keys().next().value!);
    return generation;
  }
}

/** How many chats' generations a solo store keeps in memory (a few hundred kB at most). */
const REMEMBERED_CHATS = 10_000;
