// A thread's lease taken ahead of the run that uses it. On PostgreSQL the statement that takes a chat's
// lease and its next row (core/turns/chat-lease-statements.ts) also takes the lease of the chat's current
// thread when that row is a turn, so the turn needs no statement of its own for it. The lease travels as
// a value (AheadLease) from the listing to the row's run, which claims it (ThreadLeases.runOnChat, or
// ThreadLeases.run on that thread); ChatTurns lets it go with the row's end when nobody did.
import { sql, type WithSubquery } from 'drizzle-orm';
import { type Db, threadLeases } from '../db/index.ts';
import { leaseTerms } from './lease-terms.ts';
import type { ThreadLease } from './thread-lease.ts';
import { currentThreadIdSql } from './threads.ts';

/**
 * ThreadLeases' upsert of the chat's current thread (placeholders `chat`, `threadHolder`, `ttl`) only
 * when `when` (a CTE of the same statement: the row taken) returns a row and `threadLease` is true (the
 * row is a turn, which runs on that thread; TakeRequest.threadLease), returning the thread id when
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
    .select(
      db
        .select(row)
        .from(when)
        .where(sql`${sql.placeholder('threadLease')}::boolean`),
    )
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

/**
 * A thread lease taken ahead, as a value: the chat's listing returns it with the row it took, ChatTurns
 * hands it to that row's run (Work.run's `ahead`), and the run that runs on that thread claims it —
 * once — instead of taking a lease of its own. Whoever handed it over lets it go when nobody claimed it.
 */
export class AheadLease {
  #lease: ThreadLease | undefined;

  constructor(lease: ThreadLease) {
    this.#lease = lease;
  }

  /** The lease, when it is on `threadId` (any thread when none is named) and still unclaimed; then claimed. */
  claim(threadId?: string): ThreadLease | undefined {
    const lease = this.#lease;
    if (!lease || (threadId !== undefined && lease.threadId !== threadId)) return undefined;
    this.#lease = undefined;
    return lease;
  }
}
