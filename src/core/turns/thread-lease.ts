import { randomUUID } from 'node:crypto';
import { and, count, eq, gt, like, or, sql, type Placeholder, type SQL } from 'drizzle-orm';
import { type Db, builtOnce, dialect, queryPrepared, threadLeases } from '../db/index.ts';
import type { ChatRef } from '../surface/index.ts';
import { KazmaError } from '../errors.ts';
import { leaseTerms } from './lease-terms.ts';
import type { AheadLease } from './leases-ahead.ts';
import { currentThreadIdSql } from './threads.ts';

/** Another process kept the thread for longer than a turn may wait. */
export class ThreadBusyError extends KazmaError {
  constructor(threadId: string, waitedMs: number) {
    super(
      'thread_busy',
      `another Kazma process has been running ${threadId} for over ${Math.round(waitedMs / 1000)} s; try again when ` +
        `it is done`,
    );
  }
}

/** Options for {@link ThreadLeases}. */
export interface ThreadLeasesOptions {
  db: Db;
  /** This process's name (the inbox owner); each run's holder is this name plus a run id. */
  owner: string;
  /** How long a lease lasts unless renewed; default 15 s (`turns.lease_ttl`). */
  ttlMs?: number;
  /** How long {@link run} waits for a lease another run holds; default 10 minutes (a long turn). */
  waitMs?: number;
  /**
   * Only this process can open the database (PGlite's data-dir lock): the leases live in this object's
   * memory — the same rules, no statements. Kazma builds one ThreadLeases per process (assembleKazma) and
   * hands it to every module that takes leases, so they all see the same table.
   */
  solo?: boolean;
}

interface HeldLease {
  holder: string;
  /** performance.now() milliseconds: a solo lease lives in this process, so its own monotonic clock suffices. */
  expiresAt: number;
}

/** A thread's lease as its holder holds it. */
export interface ThreadLease {
  threadId: string;
  holder: string;
}

/**
 * Takes over letting a held lease go (true: the taker's next statement deletes it, ChatTurns' last
 * listing), or declines (false: the holder lets it go itself, as without one).
 */
export type LeaseHandOff = (lease: ThreadLease) => boolean;

/**
 * The statement that takes or renews a lease (placeholders `thread` — or the `thread` given —, `holder`, `ttl`),
 * returning its owner when `holder` holds it now: INSERT … ON CONFLICT (thread) DO UPDATE … WHERE the held lease
 * expired or is the holder's. Shared with the chat's lease-and-listing statement (core/turns/chat-lease-statements.ts).
 */
export function leaseUpsert(db: Db, thread: SQL | Placeholder = sql.placeholder('thread')) {
  const { holder, expiresAt, onConflict } = leaseTerms('holder');
  return db
    .insert(threadLeases)
    .values({ threadId: thread as unknown as string, owner: holder, expiresAt })
    .onConflictDoUpdate(onConflict)
    .returning({ owner: threadLeases.owner });
}

/**
 * Per-thread exclusion across processes, by an owned, expiring lease row (the gate lease pattern). The
 * expiry is the database's clock (`now()`), so processes with drifting clocks still agree.
 * Within one process the chat queues already serialise a thread's turns; this makes it true across
 * every process that shares the database. The chat's turn order (core/chat/queue/chat-turns.ts) takes its
 * per-chat lease through the same statements, under keys `inbox:<chat>` that no thread id can take.
 */
export class ThreadLeases {
  readonly #o: Required<ThreadLeasesOptions>;
  /** The leases of a solo database (see ThreadLeasesOptions.solo), by thread. */
  readonly #soloTable = new Map<string, HeldLease>();

  constructor(options: ThreadLeasesOptions) {
    this.#o = { ttlMs: 15_000, waitMs: 600_000, solo: false, ...options };
  }

  /** True when every lease is held by this process (a solo database): nobody else records or runs its work. */
  get solo(): boolean {
    return this.#o.solo;
  }

  /**
   * Takes the lease for `holder`, or renews it when `holder` has it.
   * Statement: INSERT (thread, holder, now+ttl) ON CONFLICT (thread) DO UPDATE SET owner=holder,
   * expires_at=now+ttl WHERE the held lease expired or is the holder's, RETURNING.
   * Output: true when `holder` holds it now.
   * Invariant: at any instant at most one holder has an unexpired lease on a thread.
   */
  async acquire(threadId: string, holder: string): Promise<boolean> {
    if (this.#o.solo) {
      const held = this.#soloTable.get(threadId);
      if (held && held.holder !== holder && held.expiresAt >= performance.now()) return false;
      this.#soloTable.set(threadId, { holder, expiresAt: performance.now() + this.#o.ttlMs });
      return true;
    }
    const statement = builtOnce(this.#o.db, 'leases.acquire', (db) => leaseUpsert(db).prepare('leases_acquire'));
    const rows = await statement.execute({ thread: threadId, holder, ttl: `${this.#o.ttlMs} milliseconds` });
    return rows.length > 0;
  }

  /**
   * Extends the lease `holder` holds; false when it holds it no more (taken after it expired, or let go).
   * Statement: UPDATE … SET expires_at=now+ttl WHERE thread AND owner=holder RETURNING.
   * Invariant: never takes a lease — a renewal still under way when its holder lets the lease go cannot
   * bring it back and keep everyone else off the thread until it expires (a renewal by `acquire` could).
   */
  async renew(threadId: string, holder: string): Promise<boolean> {
    if (this.#o.solo) {
      const held = this.#soloTable.get(threadId);
      if (held?.holder !== holder) return false;
      held.expiresAt = performance.now() + this.#o.ttlMs;
      return true;
    }
    const statement = builtOnce(this.#o.db, 'leases.renew', (db) =>
      db
        .update(threadLeases)
        .set({ expiresAt: sql`now() + ${sql.placeholder('ttl')}::interval` })
        .where(
          and(eq(threadLeases.threadId, sql.placeholder('thread')), eq(threadLeases.owner, sql.placeholder('holder'))),
        )
        .returning({ owner: threadLeases.owner })
        .prepare('leases_renew'),
    );
    return (await statement.execute({ thread: threadId, holder, ttl: `${this.#o.ttlMs} milliseconds` })).length > 0;
  }

  /** Gives the lease up (only if `holder` still has it). */
  async release(threadId: string, holder: string): Promise<void> {
    if (this.#o.solo) {
      if (this.#soloTable.get(threadId)?.holder === holder) this.#soloTable.delete(threadId);
      return;
    }
    const statement = builtOnce(this.#o.db, 'leases.release', (db) =>
      db
        .delete(threadLeases)
        .where(
          and(eq(threadLeases.threadId, sql.placeholder('thread')), eq(threadLeases.owner, sql.placeholder('holder'))),
        )
        .prepare('leases_release'),
    );
    await statement.execute({ thread: threadId, holder });
  }

  /**
   * How many leases this process holds now, unexpired: threads' and chats' (`inbox:<chat>`) alike. Read
   * when metrics are scraped, never on a turn's path.
   */
  async heldCount(): Promise<number> {
    if (this.#o.solo) {
      const now = performance.now();
      return [...this.#soloTable.values()].filter((held) => held.expiresAt >= now).length;
    }
    // A chat's lease is held as the process's name (the inbox owner); a run's as `<owner>/<run>` (#holder).
    const { owner } = this.#o;
    const ours = or(eq(threadLeases.owner, owner), like(threadLeases.owner, `${owner}/%`));
    const [row] = await this.#o.db
      .select({ n: count() })
      .from(threadLeases)
      .where(and(ours, gt(threadLeases.expiresAt, sql`now()`)));
    return row?.n ?? 0;
  }

  /**
   * Runs `work` holding the thread's lease: waits (polling) while another process holds it, renews it
   * every third of its lifetime, and releases it after. Throws {@link ThreadBusyError} past `waitMs`.
   * `ahead`: a lease taken with the row this run is for (AheadLease); held instead when it is on this thread.
   */
  async run<T>(threadId: string, work: () => Promise<T>, options: { ahead?: AheadLease } = {}): Promise<T> {
    const ahead = options.ahead?.claim(threadId);
    return ahead ? this.#held(threadId, ahead.holder, true, work) : this.#held(threadId, this.#holder(), false, work);
  }

  /**
   * {@link run} on the chat's current thread (`current` reads it, ThreadStore.current). With leases in rows
   * the first try for the lease reads the chat's thread in the same statement: one statement, not two.
   * `ahead`: the lease of the chat's current thread taken with the row this run is for (AheadLease), held
   * without a statement of its own.
   */
  async runOnChat<T>(
    chat: ChatRef,
    current: () => Promise<string>,
    work: (threadId: string) => Promise<T>,
    options: { handOff?: LeaseHandOff; ahead?: AheadLease } = {},
  ): Promise<T> {
    const holder = this.#holder();
    if (this.#o.solo) {
      const threadId = await current();
      return this.#held(threadId, holder, false, () => work(threadId));
    }
    // Taken by the chat's lease statement with the row this run is for: no statement of its own.
    const ahead = options.ahead?.claim();
    if (ahead) return this.#held(ahead.threadId, ahead.holder, true, () => work(ahead.threadId), options.handOff);
    const statement = builtOnce(this.#o.db, 'leases.acquireCurrent', (db) =>
      dialect.sqlToQuery(currentLeaseUpsert(db)),
    );
    const [row] = await queryPrepared(this.#o.db, statement, { chat, holder, ttl: `${this.#o.ttlMs} milliseconds` });
    const threadId = String(row!.thread_id);
    // Let go by whoever takes the hand-off (the statement that ends the turn's inbox row), when one does.
    return this.#held(threadId, holder, row!.held === true, () => work(threadId), options.handOff);
  }

  /** A new holder's name: each run holds the lease under its own, so two runs of one process exclude each other too. */
  #holder(): string {
    return `${this.#o.owner}/${randomUUID().slice(0, 8)}`;
  }

  async #held<T>(
    threadId: string,
    holder: string,
    held: boolean,
    work: () => Promise<T>,
    handOff?: LeaseHandOff,
  ): Promise<T> {
    const started = performance.now();
    for (let pause = 20; !(held ||= await this.acquire(threadId, holder)); pause = Math.min(pause * 2, 500)) {
      if (performance.now() - started > this.#o.waitMs) throw new ThreadBusyError(threadId, this.#o.waitMs);
      await new Promise((resolve) => setTimeout(resolve, pause));
    }
    const renew = setInterval(
      () => void this.renew(threadId, holder).catch(() => undefined),
      Math.max(100, Math.floor(this.#o.ttlMs / 3)),
    );
    try {
      return await work();
    } finally {
      clearInterval(renew);
      if (!handOff?.({ threadId, holder })) await this.release(threadId, holder).catch(() => undefined);
    }
  }
}

/**
 * {@link leaseUpsert} on the chat's current thread (placeholders `chat`, `holder`, `ttl`), returning the
 * thread id and whether `holder` holds its lease now (both read in the statement's one snapshot).
 */
function currentLeaseUpsert(db: Db): SQL {
  const thread = currentThreadIdSql(sql.placeholder('chat'));
  return sql`with lease as (${leaseUpsert(db, thread).getSQL()}) select ${thread} as thread_id, exists (select 1
    from lease) as held`;
}
