import { and, eq, lt, or, sql } from 'drizzle-orm';
import type { Db } from '../db/client.ts';
import { threadLeases } from '../db/schema/leases.ts';
import { KazmaError } from '../errors.ts';

/** Another process kept the thread for longer than a turn may wait. */
export class ThreadBusyError extends KazmaError {
  constructor(threadId: string, waitedMs: number) {
    super('thread_busy', `another Kazma process has been running ${threadId} for over ${Math.round(waitedMs / 1000)} s; try again when it is done`);
  }
}

/** Options for {@link ThreadLeases}. */
export interface ThreadLeasesOptions {
  db: Db;
  /** This process's name (the inbox owner). */
  owner: string;
  /** How long a lease lasts unless renewed; default 15 s (`turns.stale_after`). */
  ttlMs?: number;
  /** How long {@link run} waits for a lease another process holds; default 2 minutes. */
  waitMs?: number;
}

/**
 * Per-thread exclusion across processes, by an owned, expiring lease row (the gate lease pattern). The
 * expiry is the database's clock (`now()`), so processes with drifting clocks still agree.
 * Within one process the chat queues already serialise a thread's turns; this makes it true across
 * every process that shares the database.
 */
export class ThreadLeases {
  readonly #o: Required<ThreadLeasesOptions>;

  constructor(options: ThreadLeasesOptions) {
    this.#o = { ttlMs: 15_000, waitMs: 120_000, ...options };
  }

  /**
   * Takes the lease, or renews it when this process holds it.
   * Statement: INSERT (thread, me, now+ttl) ON CONFLICT (thread) DO UPDATE SET owner=me, expires_at=now+ttl
   * WHERE the held lease expired or is mine, RETURNING. Output: true when this process holds it now.
   * Invariant: at any instant at most one owner holds an unexpired lease on a thread.
   */
  async acquire(threadId: string): Promise<boolean> {
    const expiresAt = sql`now() + ${`${this.#o.ttlMs} milliseconds`}::interval`;
    const rows = await this.#o.db
      .insert(threadLeases)
      .values({ threadId, owner: this.#o.owner, expiresAt })
      .onConflictDoUpdate({
        target: threadLeases.threadId,
        set: { owner: this.#o.owner, expiresAt },
        setWhere: or(lt(threadLeases.expiresAt, sql`now()`), eq(threadLeases.owner, this.#o.owner)),
      })
      .returning({ owner: threadLeases.owner });
    return rows.length > 0;
  }

  /** Gives the lease up (only if still this process's). */
  async release(threadId: string): Promise<void> {
    await this.#o.db.delete(threadLeases).where(and(eq(threadLeases.threadId, threadId), eq(threadLeases.owner, this.#o.owner)));
  }

  /**
   * Runs `work` holding the thread's lease: waits (polling) while another process holds it, renews it
   * every third of its lifetime, and releases it after. Throws {@link ThreadBusyError} past `waitMs`.
   */
  async run<T>(threadId: string, work: () => Promise<T>): Promise<T> {
    const started = Date.now();
    for (let pause = 50; !(await this.acquire(threadId)); pause = Math.min(pause * 2, 1000)) {
      if (Date.now() - started > this.#o.waitMs) throw new ThreadBusyError(threadId, this.#o.waitMs);
      await new Promise((resolve) => setTimeout(resolve, pause));
    }
    const renew = setInterval(() => void this.acquire(threadId).catch(() => undefined), Math.max(100, Math.floor(this.#o.ttlMs / 3)));
    try {
      return await work();
    } finally {
      clearInterval(renew);
      await this.release(threadId).catch(() => undefined);
    }
  }
}
