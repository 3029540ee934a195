import { LOCAL_LEASES, type AheadLease } from '../../turns/index.ts';
import { systemClock } from '../../clock.ts';
import type { OrderedWork } from './turn-hand-offs.ts';
import { ChatWaiters, staleBeforeOf, type Listing } from './chat-waiters.ts';
import { LeaseKeeper } from './lease-keeper.ts';
import { RowRuns, type Ran } from './row-runs.ts';
import { RowEndsAlone } from '../inbox/row-ends-alone.ts';
import type { InboxKey, InboxRow } from '../inbox/inbox.ts';
import type { PipelineOutcome } from '../intake/pipeline-types.ts';
import type { ChatTurnsOptions } from './chat-turns-options.ts';

export type { ChatTurnsOptions } from './chat-turns-options.ts';

/**
 * A chat's events run one at a time, strictly in the inbox's arrival order, by whichever process holds the
 * chat's lease — across every process on the database. A process that records an event calls
 * {@link submit} and waits: it takes the lease when it is free and works through the chat's unfinished
 * events in order (those other processes recorded too), or, while another process holds it, polls until
 * that holder has run the event (it sees every recorded row) or has gone (its lease lapses after
 * `turns.lease_ttl`, and this process carries on from the first unfinished event).
 *
 * @example
 * const turns = new ChatTurns({ inbox, leases: threadLeases, plan: (row) => workOf(row) });
 * await turns.submit('telegram:42', { platform: 'telegram', eventId: '1001' });
 */
export class ChatTurns {
  readonly #o: Required<Omit<ChatTurnsOptions, 'logger' | 'track'>> & Pick<ChatTurnsOptions, 'logger' | 'track'>;
  /** Per chat, the events this process recorded (or took up) and waits on. */
  readonly #waiting = new ChatWaiters();
  /** Chats with a session running in this process: at most one each. */
  readonly #sessions = new Set<string>();
  /** Chats whose lease this process holds right now. */
  readonly #holding = new Set<string>();
  /** Ends a polling session's pause early: a new event of this process should try for the lease at once. */
  readonly #wake = new Map<string, () => void>();
  /** Runs a taken row and ends it, folded into the next listing or on its own. */
  readonly #rows: RowRuns;
  #closed = false;

  constructor(options: ChatTurnsOptions) {
    this.#o = {
      leases: LOCAL_LEASES,
      renewMs: 5_000,
      staleAfterMs: 15_000,
      clock: systemClock,
      poll: { minMs: 10, maxMs: 250 },
      ...options,
    };
    const alone = new RowEndsAlone({ inbox: this.#o.inbox, leases: this.#o.leases, logger: this.#o.logger });
    this.#rows = new RowRuns({ alone, waiting: this.#waiting, leases: this.#o.leases });
  }

  /**
   * Waits until the event has been run, here in its turn or by another process. Resolves with what became
   * of it ('duplicate' when another process ran it; 'stopping' when this process stopped first — the row
   * stays in the inbox for another process or the next start). `threadLease`: the event is a turn on the
   * chat's current thread, whose lease the chat's listing may take with the row (AheadLease).
   */
  submit(
    chat: string,
    key: InboxKey,
    options: { staleBefore?: Date; threadLease?: boolean } = {},
  ): Promise<PipelineOutcome> {
    if (this.#closed) return Promise.resolve('stopping');
    const waiter = this.#waiting.add(chat, key, options);
    this.#wake.get(chat)?.();
    this.#start(chat);
    return waiter.promise;
  }

  /**
   * Stops taking events. A chat whose lease this process holds goes on with the events this process
   * accepted (in their turn) until they end or shutdown stops their turns; every other waiter gets
   * 'stopping' at once, its row left in the inbox for another process or the next start.
   */
  close(): void {
    this.#closed = true;
    for (const chat of this.#waiting.chats()) if (!this.#holding.has(chat)) this.#waiting.letGo(chat);
  }

  #start(chat: string): void {
    if (this.#sessions.has(chat)) return;
    this.#sessions.add(chat);
    const session = this.#session(chat).finally(() => {
      this.#sessions.delete(chat);
      if (this.#closed) this.#waiting.letGo(chat);
      // A waiter added as the session ended would otherwise wait for nobody.
      else if (this.#waiting.count(chat) > 0) this.#start(chat);
    });
    this.#o.track?.(session);
  }

  /** Until this process waits on nothing in the chat: hold the lease and work, or poll while another holds it. */
  async #session(chat: string): Promise<void> {
    const { leases, inbox, poll } = this.#o;
    const lease = leaseKeyOf(chat);
    let pause = poll.minMs;
    while (!this.#closed && this.#waiting.count(chat) > 0) {
      try {
        // With the chat's rows when the leases list them in the same statement (PostgreSQL).
        const asOf = this.#waiting.now();
        // The event this process waited on first is taken in the same statement when it is the chat's
        // next (the common case: one message in a quiet chat); any other row is taken on its own below.
        const take = this.#waiting.takeRequest(chat, this.#o.staleAfterMs, this.#o.clock);
        const got: { held: boolean | undefined; rows?: InboxRow[]; taken?: InboxRow; ahead?: AheadLease } =
          leases.acquireListing
            ? await leases.acquireListing(lease, inbox.owner, chat, take)
            : { held: await leases.acquire(lease, inbox.owner) };
        const listed = got.rows && {
          rows: got.rows,
          asOf,
          ...(got.taken && { taken: got.taken }),
          ...(got.ahead && { ahead: got.ahead }),
        };
        // `held` is unknown only with no row listed: #hold then ends at once, and the lease is let go.
        if (got.held !== false) {
          this.#holding.add(chat);
          let released = false;
          try {
            released = await this.#hold(chat, lease, listed);
          } finally {
            this.#holding.delete(chat);
            if (!released) await leases.release(lease, inbox.owner).catch(() => undefined);
          }
          pause = poll.minMs;
          continue;
        }
        // Another process holds the chat: it runs our events too, in their turn; see which it finished.
        this.#waiting.settleFinished(chat, listed ?? (await this.#waiting.listing(() => inbox.unfinishedOf(chat))));
      } catch (error) {
        this.#o.logger?.warn({ err: error, chat }, 'working through a chat’s events failed; trying again');
        pause = poll.maxMs;
      }
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, pause);
        this.#wake.set(chat, () => {
          clearTimeout(timer);
          resolve();
        });
      });
      this.#wake.delete(chat);
      pause = Math.min(pause * 2, poll.maxMs);
    }
  }

  /**
   * Holding the lease: runs the chat's unfinished events in arrival order until none is left, starting
   * from `listed` when the lease came with the rows. True when its last listing also let the lease go.
   * Each round: list (ending the row run before, in the same statement where the leases can), settle the
   * waiters, pick the next row that waits its turn, check the lease is still held, take the row, run it.
   */
  async #hold(chat: string, lease: string, listed?: Listing): Promise<boolean> {
    const { leases, inbox } = this.#o;
    const keeper = new LeaseKeeper(() => leases.renew(lease, inbox.owner), this.#o.renewMs);
    // The row last run, while its end is not written: the next listing writes it (one statement), and
    // only then is its waiter told, so whoever waits on it sees the row ended.
    let ran: Ran | undefined;
    // The thread lease taken with the first listing's row: handed to the first row run, else let go.
    let ahead = listed?.ahead;
    try {
      while (this.#more(chat)) {
        const listing = listed ?? (await this.#list(chat, lease, ran?.ending));
        listed = undefined;
        if (ran) this.#waiting.settle(chat, ran.row, ran.outcome);
        ran = undefined;
        this.#waiting.settleFinished(chat, listing);
        // Let go with nothing listed; a waiter added meanwhile keeps the session going (#session's loop).
        if (listing.released) return true;
        const next = await this.#next(listing.rows);
        if (!next) {
          this.#waiting.settleUnplanned(chat, listing.rows);
          return false;
        }
        if (!(await keeper.stillHeld())) return false;
        const taken = await this.#take(chat, listing, next.row);
        if (!taken) {
          // Running in a live process that held the chat before (its lease lapsed mid-event): it ends it.
          await sleep(this.#o.poll.maxMs);
          continue;
        }
        const done = await this.#rows.run(chat, next, taken, ahead);
        ahead = undefined;
        if (done.ran) ran = done.ran;
        else if (done.outcome === 'stopping') return false;
      }
      return false;
    } finally {
      keeper.stop();
      await this.#rows.endUnfinished(chat, ran, ahead);
    }
  }

  /** Whether to look for more rows: solo, the rows this process waits on are all there is. */
  #more(chat: string): boolean {
    const others = this.#o.leases.solo === true ? false : !this.#closed;
    return others || this.#waiting.count(chat) > 0;
  }

  /** The chat's unfinished rows, ending the row run before in the same statement where the leases can. */
  #list(chat: string, lease: string, ending: Ran['ending'] | undefined): Promise<Listing> {
    const { leases, inbox } = this.#o;
    return this.#waiting.listing(() =>
      leases.listReleasing ? leases.listReleasing(lease, inbox.owner, chat, ending) : this.#unfinishedTaking(chat),
    );
  }

  /**
   * The row, taken by the listing's statement already, or now by one of its own. (A row taken there that
   * planning passes over — access narrowed in between — stays running under this process, as a row passed
   * over stays received: the inbox's recovery at the next start takes it up as things then stand.)
   */
  async #take(chat: string, listing: Listing, row: InboxRow): Promise<InboxRow | undefined> {
    const withListing = sameRow(listing.taken, row) ? listing.taken : undefined;
    if (withListing) {
      this.#o.inbox.taken(withListing);
      return withListing;
    }
    return this.#o.inbox.take(row, staleBeforeOf(this.#waiting.get(chat, row), this.#o.staleAfterMs, this.#o.clock));
  }

  /** The chat's unfinished rows, taking the event waited on first when it is the chat's next (one statement). */
  #unfinishedTaking(chat: string): Promise<InboxRow[] | { rows: InboxRow[]; taken?: InboxRow }> {
    const take = this.#waiting.takeRequest(chat, this.#o.staleAfterMs, this.#o.clock);
    return take ? this.#o.inbox.unfinishedTakingOf(chat, take) : this.#o.inbox.unfinishedOf(chat);
  }

  /** The first unfinished row that waits its turn, with its work. */
  async #next(rows: InboxRow[]): Promise<{ row: InboxRow; work: OrderedWork } | undefined> {
    for (const row of rows) {
      const work = await this.#o.plan(row);
      if (work) return { row, work };
    }
    return undefined;
  }
}

/** The lease key of a chat's inbox, in the thread_leases table (thread ids never start with `inbox:`). */
function leaseKeyOf(chat: string): string {
  return `inbox:${chat}`;
}

function sameRow(a: InboxRow | undefined, b: InboxRow): a is InboxRow {
  return a !== undefined && a.platform === b.platform && a.eventId === b.eventId;
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
