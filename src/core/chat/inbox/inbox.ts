import { and, eq, inArray, isNull, lte, ne, or, sql } from 'drizzle-orm';
import { type Db, onLiveConnection, builtOnce, inbox, type InboxState } from '../../db/index.ts';
import { recordSent, type SentReply } from '../../outbox/index.ts';
import {
  readUnfinishedTaking,
  runningBy,
  takeParams,
  takeUpdate,
  unfinishedTaking,
  rowEndParams,
  rowEndUpdate,
  type RowEnd,
} from '../../turns/index.ts';
import type { InboundEvent } from '../../surface/index.ts';
import { insertEvent } from './insert.ts';
import { InboxUnavailableError, type InboxKey, type InboxRow } from './keys.ts';

export { InboxUnavailableError, inboxKey, turnIdOf, type InboxKey, type InboxRow } from './keys.ts';

/**
 * The durable inbox: every inbound event is written here before it is acknowledged, and moves
 * received → running → done | failed as it is worked on. Each state change is one compare-and-set
 * statement; `owner` names the process working on a row and `updated_at` is its heartbeat.
 */
export class Inbox {
  readonly #db: Db;
  readonly #owner: string;
  #timer: NodeJS.Timeout | undefined;

  readonly #writeTimeoutMs: number;
  readonly #onTaken: ((chat: string) => void) | undefined;

  /**
   * `writeTimeoutMs`: how long recording may take before the platform is told to redeliver; default 2.5 s (Slack's
   * deadline is 3 s).
   * `onTaken`: told each time this process takes a chat's row (taking it stamps `progress_at`).
   */
  constructor(options: { db: Db; owner: string; writeTimeoutMs?: number; onTaken?: (chat: string) => void }) {
    this.#db = options.db;
    this.#owner = options.owner;
    this.#writeTimeoutMs = options.writeTimeoutMs ?? 2500;
    this.#onTaken = options.onTaken;
  }

  /** This process's name in the `owner` column. */
  get owner(): string {
    return this.#owner;
  }

  /**
   * Records an event. Statement: INSERT … ON CONFLICT (platform, event_id) DO NOTHING RETURNING.
   * Output: true for the first delivery, false for a redelivery. Invariant: of racing deliveries of
   * one event exactly one gets true. Throws {@link InboxUnavailableError} when nothing was written.
   */
  async record(event: InboundEvent, state: Extract<InboxState, 'received' | 'refused'>): Promise<boolean> {
    return this.#answered(() => insertEvent(this.#db, { event, state, owner: this.#owner }));
  }

  /**
   * The row a {@link record} that returned false ran into: a redelivery, or a first delivery whose earlier
   * write landed after its answer was lost. Throws {@link InboxUnavailableError} when it cannot be read or
   * is not there (an answer that cannot be true), so the event is not acknowledged and comes again.
   */
  async recorded(key: InboxKey): Promise<InboxRow> {
    const row = await this.#answered(() => this.get(key));
    if (!row)
      throw new InboxUnavailableError(
        new Error(`the database said ${key.platform} event ${key.eventId} was recorded, then had no such row`),
      );
    return row;
  }

  /** A statement at intake, on a live connection and answered within writeTimeoutMs, or InboxUnavailableError. */
  async #answered<T>(statement: () => Promise<T>): Promise<T> {
    // A write that hangs (a partitioned network) counts as failed; should it land later, the pipeline
    // takes it up (recover, or the redelivery's read-back).
    return onLiveConnection(statement, { timeoutMs: this.#writeTimeoutMs }).catch((error: unknown) => {
      throw new InboxUnavailableError(error);
    });
  }

  /**
   * Takes a row to work on, counting the attempt: a row this process recorded (received → running), or
   * — with `staleBefore` — one whose owner stopped heart-beating before then (received or running).
   * Statement: UPDATE … SET state='running', owner=me, attempts=attempts+1 WHERE key AND ((state='received'
   * AND owner=me) OR (state IN ('received','running') AND updated_at <= staleBefore)) RETURNING *.
   * Output: the row when this process won it, undefined otherwise. Invariant: one owner at a time.
   */
  async claim(key: InboxKey, options: { staleBefore?: Date } = {}): Promise<InboxRow | undefined> {
    const mine = and(eq(inbox.state, 'received'), eq(inbox.owner, this.#owner));
    const takeable = options.staleBefore
      ? or(mine, and(inArray(inbox.state, ['received', 'running']), lte(inbox.updatedAt, options.staleBefore)))
      : mine;
    const [row] = await this.#db
      .update(inbox)
      .set(runningBy(this.#owner))
      .where(and(this.#where(key), takeable))
      .returning();
    return row;
  }

  /**
   * Takes a row as the holder of its chat's lease (see ChatTurns): a row any process recorded, a running
   * one whose owner stopped heart-beating before `staleBefore`, or a running one of this process's — a
   * take whose answer was lost (the chat's lease holder runs its rows one at a time, so no run of it is
   * under way here) — counting the attempt.
   * Statement: UPDATE … SET state='running', owner=me, attempts=attempts+1 WHERE key AND (state='received'
   * OR (state='running' AND (updated_at <= staleBefore OR owner=me))) RETURNING *.
   * Output: the row when this process won it, undefined otherwise. Invariant: one owner at a time; another
   * live owner's running row is never taken.
   */
  async take(key: InboxKey, staleBefore: Date): Promise<InboxRow | undefined> {
    const statement = builtOnce(this.#db, 'inbox.take', (db) => takeUpdate(db).prepare('inbox_take'));
    const [row] = await statement.execute(takeParams(key, this.#owner, staleBefore));
    if (row) this.taken(row);
    return row;
  }

  /** Tells of a row this process took, here or in a chat's listing (ChatLeases.acquireListing's `take`). */
  taken(row: InboxRow): void {
    this.#onTaken?.(row.chat);
  }

  /**
   * A chat's unfinished rows (received or running) in arrival order (`seq`: the order they were recorded
   * in) — the order its turns are taken in.
   */
  async unfinishedOf(chat: string): Promise<InboxRow[]> {
    const statement = builtOnce(this.#db, 'inbox.unfinishedOf', (db) =>
      db
        .select()
        .from(inbox)
        .where(and(eq(inbox.chat, sql.placeholder('chat')), inArray(inbox.state, ['received', 'running'])))
        .orderBy(inbox.seq)
        .prepare('inbox_unfinished_of'),
    );
    return statement.execute({ chat });
  }

  /**
   * {@link unfinishedOf}, taking `take`'s row in the same statement when it is the chat's first unfinished
   * one (Inbox.take's compare-and-set): for a process that holds the chat's lease (ChatTurns).
   */
  async unfinishedTakingOf(
    chat: string,
    take: { key: InboxKey; staleBefore: Date },
  ): Promise<{ rows: InboxRow[]; taken?: InboxRow }> {
    const statement = builtOnce(this.#db, 'inbox.unfinishedTakingOf', (db) =>
      unfinishedTaking(db).prepare('inbox_unfinished_taking_of'),
    );
    return readUnfinishedTaking(
      await statement.execute({ chat, ...takeParams(take.key, this.#owner, take.staleBefore) }),
    );
  }

  /**
   * Renews this process's lease on every row it holds, queued or running, in one statement, so no other
   * process takes up an event that is merely waiting behind a long turn here.
   */
  async heartbeat(): Promise<void> {
    await this.#db
      .update(inbox)
      .set({ updatedAt: sql`now()` })
      .where(and(eq(inbox.owner, this.#owner), inArray(inbox.state, ['received', 'running'])));
  }

  /** Beats every `ms` until {@link stopHeartbeat}; a failed beat is retried at the next one. */
  startHeartbeat(ms: number): void {
    this.#timer ??= setInterval(() => void this.heartbeat().catch(() => {}), ms);
    this.#timer.unref();
  }

  stopHeartbeat(): void {
    clearInterval(this.#timer);
    this.#timer = undefined;
  }

  /**
   * Ends a row this process holds: running → done | failed ({@link rowEndUpdate}).
   * Output: true when the row moved. Invariant: only the owner ends a row, and only once.
   */
  async finish(key: InboxKey, state: RowEnd['state'], error?: string): Promise<boolean> {
    const statement = builtOnce(this.#db, 'inbox.finish', (db) => rowEndUpdate(db).prepare('inbox_finish'));
    const rows = await statement.execute(
      rowEndParams({ key, state, ...(error !== undefined && { error }) }, this.#owner),
    );
    return rows.length > 0;
  }

  /**
   * {@link finish}, recording the turn's sent replies (`end.sent`) as sent in the same statement; retried on a live
   * connection (both halves move only rows still as they expect).
   */
  async end(end: RowEnd): Promise<boolean> {
    if (!end.sent?.length) return this.finish(end.key, end.state, end.error);
    const statement = builtOnce(this.#db, 'inbox.finishMarkingSent', (db) =>
      rowEndUpdate(db, { markingSent: true }).prepare('inbox_finish_marking_sent'),
    );
    const rows = await onLiveConnection(() => statement.execute(rowEndParams(end, this.#owner)));
    return rows.length > 0;
  }

  /** Records replies a turn sent as sent, in a statement of their own (a turn whose row was left running). */
  async recordSent(sent: readonly SentReply[]): Promise<void> {
    await onLiveConnection(() => recordSent(this.#db, sent));
  }

  /**
   * Rows not finished, oldest first: other processes' rows untouched since `before` (their process
   * stopped), and every row of this process (the caller skips the ones it is working on).
   */
  async unfinished(before: Date): Promise<InboxRow[]> {
    const abandoned = and(lte(inbox.updatedAt, before), or(isNull(inbox.owner), ne(inbox.owner, this.#owner)));
    return this.#db
      .select()
      .from(inbox)
      .where(and(inArray(inbox.state, ['received', 'running']), or(abandoned, eq(inbox.owner, this.#owner))))
      .orderBy(inbox.seq);
  }

  /** One row, as it is now. */
  async get(key: InboxKey): Promise<InboxRow | undefined> {
    const [row] = await this.#db.select().from(inbox).where(this.#where(key));
    return row;
  }

  /** Deletes finished rows older than `before`; platforms stopped redelivering them long ago. */
  async prune(before: Date): Promise<number> {
    const rows = await this.#db
      .delete(inbox)
      .where(and(inArray(inbox.state, ['done', 'failed', 'refused']), lte(inbox.updatedAt, before)))
      .returning({ eventId: inbox.eventId });
    return rows.length;
  }

  #where(key: InboxKey) {
    return and(eq(inbox.platform, key.platform), eq(inbox.eventId, key.eventId));
  }
}
