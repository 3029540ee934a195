// A thread's lease taken ahead of the run that uses it. On PostgreSQL the statement that takes a chat's
// lease and its next row (core/turns/chat-lease-statements.ts) also takes the lease of the chat's current
// thread, so the turn that runs the row needs no statement of its own for it; this process keeps it
// until that run holds it (ThreadLeases.runOnChat on the chat, ThreadLeases.run on the thread) or ChatTurns
// lets it go with the row's end.
import { sql, type WithSubquery } from 'drizzle-orm';
import { type Db, threadLeases } from '../db/index.ts';
import { leaseTerms } from './lease-terms.ts';
import type { ThreadLease } from './thread-lease.ts';
import { currentThreadIdSql } from './threads.ts';

/**
 * ThreadLeases' upsert of the chat's current thread (placeholders `chat`, `threadHolder`, `ttl`) only
 * when `when` (a CTE of the same statement: the row taken) returns a row, returning the thread id when
 * `threadHolder` holds the lease now — taken, or renewed when it already held it.
 */
export function currentLeaseUpsertWhen(db: Db, when: WithSubquery) {
  const { holder, expiresAt, onConflict } = leaseTerms('threadHolder');
  const row = {
    threadId: sql<string>`${currentThreadIdSql(sql.placeholder('chat'))}`.as('thread_id'),
    owner: sql<string>`${holder}::text`.as('owner'),
    expiresAt: sql<Date>`${expiresAt}`.as('expires_at'),
  };
  return db
    .insert(threadLeases)
    .select(db.select(row).from(when))
    .onConflictDoUpdate(onConflict)
    .returning({ threadId: threadLeases.threadId });
}

/**
 * The holder a row's thread lease is taken ahead under: the same for every try of one process at one
 * row, so a try whose answer was lost (the lease taken, this process never told) is followed by one that
 * renews that lease instead of waiting for it to lapse. Only that row's run uses it.
 */
export function aheadHolder(owner: string, row: { platform: string; eventId: string }): string {
  return `${owner}/row:${row.platform}:${row.eventId}`;
}

/** The leases kept ahead by one process, by chat (one per ThreadLeases, which Kazma builds once). */
export class LeasesAhead {
  readonly #byChat = new Map<string, ThreadLease>();

  keep(chat: string, lease: ThreadLease): void {
    this.#byChat.set(chat, lease);
  }

  /** The chat's lease, no longer kept. */
  take(chat: string): ThreadLease | undefined {
    const lease = this.#byChat.get(chat);
    this.#byChat.delete(chat);
    return lease;
  }

  /** The lease kept on `threadId`, whichever chat's it is, no longer kept. */
  takeOfThread(threadId: string): ThreadLease | undefined {
    for (const [chat, lease] of this.#byChat) if (lease.threadId === threadId) return this.take(chat);
    return undefined;
  }
}
