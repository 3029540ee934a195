// The lease a chat's turns are taken under (see ChatTurns), and the one an embedded database needs.
import type { ThreadLease } from './thread-lease.ts';
import type { AheadLease } from './leases-ahead.ts';
import type { InboxKey, InboxRow } from '../chat/index.ts';
import type { RowEnd } from './row-end.ts';

/** A row to take with a chat's listing: the event, and when a running row's owner counts as stopped. */
export interface TakeRequest {
  key: InboxKey;
  staleBefore: Date;
  /** The row is a turn on the chat's current thread: take that thread's lease ahead with it (AheadLease). */
  threadLease: boolean;
}

/**
 * An owned, expiring lease per key, shared by every process on the database (ThreadLeases' statements).
 * `acquire` takes or renews it for `holder`; false while someone else holds it. The optional two fold
 * the chat's inbox listing into the lease's statements (chat-lease-statements.ts, PostgreSQL).
 */
export interface ChatLeases {
  /** Only this process works on the database: every unfinished row of a chat is one this process waits on. */
  readonly solo?: boolean;
  acquire(key: string, holder: string): Promise<boolean>;
  release(key: string, holder: string): Promise<void>;
  /**
   * Takes or renews the lease and lists the chat's unfinished rows; `held` unknown when none is listed.
   * With `take`, also takes that row for `holder` (Inbox.take) when the lease is held and the row is the
   * chat's first unfinished one, and gives it as `taken` (the listing still shows it as it was) — with
   * the lease of the chat's current thread as `ahead` when `take.threadLease`: the caller hands it to
   * the row's run, or lets it go.
   */
  acquireListing?(
    key: string,
    holder: string,
    chat: string,
    take?: TakeRequest,
  ): Promise<{ held: boolean | undefined; rows: InboxRow[]; taken?: InboxRow; ahead?: AheadLease }>;
  /**
   * Lists the chat's unfinished rows, and lets the lease go when there is none (`released`); with
   * `ending`, first ends that row, which `holder` owns (Inbox.finish), and lets go of the thread lease
   * its turn handed off, in the same statement.
   */
  listReleasing?(
    key: string,
    holder: string,
    chat: string,
    ending?: { row: RowEnd; lease?: ThreadLease },
  ): Promise<{ rows: InboxRow[]; released: boolean }>;
  /** Extends a lease `holder` holds, never taking one back; false when it holds it no more. */
  renew(key: string, holder: string): Promise<boolean>;
}

/** A process-local lease: the embedded database has one process, and ChatTurns runs one session per chat. */
export const LOCAL_LEASES: ChatLeases = { acquire: async () => true, release: async () => {}, renew: async () => true };
