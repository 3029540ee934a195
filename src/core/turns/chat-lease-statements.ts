// A chat's lease and its inbox listing, each pair in one statement, for PostgreSQL (several processes).
// A turn took the chat's lease, listed the chat's unfinished rows, ran, listed them again (another
// process may have recorded one meanwhile), and let the lease go: four statements around every turn.
// Taking the lease and listing go together, and so do the last listing and letting go (only when
// nothing is left); two statements instead of four. The row the turn ran ends in that last statement
// too, instead of one of its own just before. The lease's own statements are ThreadLeases' (its
// renewal only ever extends a lease still held, so one under way when the last listing let the lease go
// cannot take it back).
import { and, eq, getTableColumns, inArray, not, or, sql } from 'drizzle-orm';
import { type Db, builtOnce, inbox, threadLeases } from '../db/index.ts';
import { AheadLease, aheadHolder, currentLeaseUpsertWhen } from './leases-ahead.ts';
import { leaseUpsert, type ThreadLease, type ThreadLeases } from './thread-lease.ts';
import { sentMarksUpdate } from '../outbox/index.ts';
import type { ChatLeases, TakeRequest } from './chat-leases.ts';
import type { InboxRow } from '../chat/index.ts';
import { readUnfinishedTaking, takeParams, unfinishedTaking } from './inbox-take.ts';
import { rowEndParams, rowEndUpdate, type RowEnd } from './row-end.ts';

const UNFINISHED = ['received', 'running'] as const;

/**
 * {@link ChatLeases} on PostgreSQL: ThreadLeases' rows (keys `inbox:<chat>`), with the listing folded in.
 *
 * Inputs: the lease key, this process's holder name, the chat.
 * Outputs: the chat's unfinished rows in arrival order (the inbox's order), with what became of the lease.
 * Invariants: the lease rules are ThreadLeases' (one unexpired holder); the rows are read in the same
 * statement's snapshot as the lease change; a lease is let go only when that snapshot has no unfinished
 * row of the chat; a renewal never inserts.
 */
export class ChatLeaseStatements implements ChatLeases {
  readonly #db: Db;
  readonly #leases: ThreadLeases;
  readonly #ttl: string;

  constructor(options: { db: Db; leases: ThreadLeases; ttlMs: number }) {
    this.#db = options.db;
    this.#leases = options.leases;
    this.#ttl = `${options.ttlMs} milliseconds`;
  }

  acquire(key: string, holder: string): Promise<boolean> {
    return this.#leases.acquire(key, holder);
  }

  release(key: string, holder: string): Promise<void> {
    return this.#leases.release(key, holder);
  }

  /**
   * Takes or renews the lease, and lists the chat's unfinished rows. `held` is undefined when there is
   * no row to carry it (the caller then treats the lease as possibly held, and lets it go). With `take`,
   * the same statement also takes that row (Inbox.take's compare-and-set) when the lease is held and the
   * row is the chat's first unfinished one: `taken` is the row as taken; the listing shows it as before.
   */
  async acquireListing(
    key: string,
    holder: string,
    chat: string,
    take?: TakeRequest,
  ): Promise<{ held: boolean | undefined; rows: InboxRow[]; taken?: InboxRow; ahead?: AheadLease }> {
    if (take) return this.#acquireListingTaking(key, holder, chat, take);
    const statement = builtOnce(this.#db, 'chatLeases.acquireListing', (db) => {
      const lease = db.$with('lease').as(leaseUpsert(db));
      return db
        .with(lease)
        .select({ ...getTableColumns(inbox), held: sql<boolean>`exists (select 1 from ${lease})`.as('held') })
        .from(inbox)
        .where(and(eq(inbox.chat, sql.placeholder('chat')), inArray(inbox.state, [...UNFINISHED])))
        .orderBy(inbox.seq)
        .prepare('chat_lease_acquire_listing');
    });
    const listed = await statement.execute({ thread: key, holder, chat, ttl: this.#ttl });
    return { held: listed[0]?.held, rows: listed.map(({ held: _held, ...row }) => row) };
  }

  /**
   * The taking listing also takes the lease of the chat's current thread, with the row, under a holder of
   * that row's (aheadHolder), when the row is a turn (`take.threadLease`): returned as `ahead`, a value
   * the caller hands to the turn that runs the row, which then takes no lease of its own — one statement
   * fewer. Whoever runs the row and does not use it lets it go (ChatTurns).
   */
  async #acquireListingTaking(
    key: string,
    holder: string,
    chat: string,
    take: TakeRequest,
  ): Promise<{ held: boolean | undefined; rows: InboxRow[]; taken?: InboxRow; ahead?: AheadLease }> {
    const statement = builtOnce(this.#db, 'chatLeases.acquireListingTaking', (db) =>
      unfinishedTaking(db, db.$with('lease').as(leaseUpsert(db)), (taken) =>
        db.$with('ahead').as(currentLeaseUpsertWhen(db, taken)),
      ).prepare('chat_lease_acquire_listing_taking'),
    );
    const threadHolder = aheadHolder(holder, take.key);
    const { ahead, ...listed } = readUnfinishedTaking(
      await statement.execute({
        thread: key,
        holder,
        chat,
        ttl: this.#ttl,
        threadHolder,
        threadLease: take.threadLease,
        ...takeParams(take.key, holder, take.staleBefore),
      }),
    );
    return ahead ? { ...listed, ahead: new AheadLease({ threadId: ahead, holder: threadHolder }) } : listed;
  }

  /**
   * Lists the chat's unfinished rows and, when there is none, lets `holder`'s lease go. With `ending`, the
   * row just run is ended in the same statement (Inbox's own statement, rowEndUpdate) and left out of the
   * listing — the statement's snapshot still shows it running —, and the thread lease its turn handed off
   * is let go. `holder` is also the row's owner (ChatTurns holds a chat's lease under the inbox's owner name).
   */
  async listReleasing(
    key: string,
    holder: string,
    chat: string,
    ending?: { row: RowEnd; lease?: ThreadLease },
  ): Promise<{ rows: InboxRow[]; released: boolean }> {
    const rows = ending
      ? await builtOnce(this.#db, 'chatLeases.endListReleasing', (db) =>
          listReleasing(db, { ending: true }).prepare('chat_lease_end_list_releasing'),
        ).execute({
          key,
          holder,
          chat,
          ...rowEndParams(ending.row, holder),
          thread: ending.lease?.threadId ?? null,
          threadHolder: ending.lease?.holder ?? null,
        })
      : await builtOnce(this.#db, 'chatLeases.listReleasing', (db) =>
          listReleasing(db, { ending: false }).prepare('chat_lease_list_releasing'),
        ).execute({ key, holder, chat });
    // With no row left the statement deleted the lease if `holder` held it; either way it is not held now.
    return { rows, released: rows.length === 0 };
  }

  renew(key: string, holder: string): Promise<boolean> {
    return this.#leases.renew(key, holder);
  }
}

/**
 * The chat's unfinished rows (placeholder `chat`), deleting the lease `key` of `holder` when there is
 * none; `ending`: first ends the row `platform`/`eventId` (rowEndUpdate), which is then not counted, and
 * deletes the thread lease `thread` of `threadHolder`, and records the turn's replies in `sent` as sent.
 */
function listReleasing(db: Db, { ending }: { ending: boolean }) {
  const ended = and(eq(inbox.platform, sql.placeholder('platform')), eq(inbox.eventId, sql.placeholder('eventId')));
  const unfinished = and(
    eq(inbox.chat, sql.placeholder('chat')),
    inArray(inbox.state, [...UNFINISHED]),
    ...(ending ? [not(ended!)] : []),
  );
  const chatLease = and(
    eq(threadLeases.threadId, sql.placeholder('key')),
    eq(threadLeases.owner, sql.placeholder('holder')),
    sql`not exists (select 1 from ${inbox} where ${unfinished})`,
  );
  // The turn's thread lease, when it handed one off (null placeholders match no row).
  const threadLease = and(
    eq(threadLeases.threadId, sql.placeholder('thread')),
    eq(threadLeases.owner, sql.placeholder('threadHolder')),
  );
  const gone = db.$with('gone').as(
    db
      .delete(threadLeases)
      .where(ending ? or(chatLease, threadLease) : chatLease)
      .returning({ owner: threadLeases.owner }),
  );
  // Ending: the row's end, and the replies its turn sent recorded as sent (placeholder `sent`).
  const withs = ending
    ? [db.$with('ended').as(rowEndUpdate(db)), db.$with('sent').as(sentMarksUpdate(db)), gone]
    : [gone];
  return db
    .with(...withs)
    .select()
    .from(inbox)
    .where(unfinished)
    .orderBy(inbox.seq);
}
