import { type ThreadLease, LOCAL_LEASES, type ChatLeases, type RowEnd } from '../../turns/index.ts';
import type { Logger } from '../../log/index.ts';
import { systemClock, type Clock } from '../../clock.ts';
import { TurnHandOffs, type OrderedWork } from './turn-hand-offs.ts';
import { ChatWaiters, staleBeforeOf, type Listing } from './chat-waiters.ts';
import { RowEndsAlone } from '../inbox/row-ends-alone.ts';
import type { Inbox, InboxKey, InboxRow } from '../inbox/inbox.ts';
import type { PipelineOutcome } from '../intake/pipeline-types.ts';

/** Options for {@link ChatTurns}. */
export interface ChatTurnsOptions {
  inbox: Pick<Inbox, 'owner' | 'take' | 'taken' | 'unfinishedOf' | 'unfinishedTakingOf' | 'end' | 'recordSent'>;
  /** The work of a row, or undefined when it does not wait its turn (e.g. /status): whoever recorded it runs it. */
  plan: (row: InboxRow) => Promise<OrderedWork | undefined>;
  /** Across processes (PostgreSQL); default: within this process only, enough for the embedded database. */
  leases?: ChatLeases;
  /** How often a held lease is renewed; default 5 s (a third of `turns.stale_after`, the lease's life). */
  renewMs?: number;
  /** A running row untouched this long was left by a stopped process; default 15 s (`turns.stale_after`). */
  staleAfterMs?: number;
  /** Where "`staleAfterMs` ago" is read from; default {@link systemClock}. */
  clock?: Clock;
  /** Pauses between tries for a lease another process holds, doubling; default 10 ms up to 250 ms. */
  poll?: { minMs: number; maxMs: number };
  /** Keeps shutdown waiting for a chat's session (ChatQueues.track). */
  track?: (work: Promise<unknown>) => void;
  logger?: Logger;
}

/**
 * A chat's events run one at a time, strictly in the inbox's arrival order, by whichever process holds the
 * chat's lease — across every process on the database. A process that records an event calls
 * {@link submit} and waits: it takes the lease when it is free and works through the chat's unfinished
 * events in order (those other processes recorded too), or, while another process holds it, polls until
 * that holder has run the event (it sees every recorded row) or has gone (its lease lapses after
 * `turns.stale_after`, and this process carries on from the first unfinished event).
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
  /** What the last listing writes with a row's end, when it is written alone. */
  readonly #alone: RowEndsAlone;
  #closed = false;

  constructor(options: ChatTurnsOptions) {
    this.#o = { leases: LOCAL_LEASES, renewMs: 5_000, staleAfterMs: 15_000, clock: systemClock, poll: { minMs: 10, maxMs: 250 }, ...options };
    this.#alone = new RowEndsAlone({ inbox: this.#o.inbox, leases: this.#o.leases, logger: this.#o.logger });
  }

  /**
   * Waits until the event has been run, here in its turn or by another process. Resolves with what became
   * of it ('duplicate' when another process ran it; 'stopping' when this process stopped first — the row
   * stays in the inbox for another process or the next start).
   */
  submit(chat: string, key: InboxKey, options: { staleBefore?: Date } = {}): Promise<PipelineOutcome> {
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
        const got: { held: boolean | undefined; rows?: InboxRow[]; taken?: InboxRow } = leases.acquireListing
          ? await leases.acquireListing(lease, inbox.owner, chat, take)
          : { held: await leases.acquire(lease, inbox.owner) };
        const listed = got.rows && { rows: got.rows, asOf, ...(got.taken && { taken: got.taken }) };
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
   */
  async #hold(chat: string, lease: string, listed?: Listing): Promise<boolean> {
    const { leases, inbox, renewMs } = this.#o;
    let renewed = performance.now();
    let lost = false;
    const renew = async () => {
      if (await leases.renew(lease, inbox.owner)) renewed = performance.now();
      else lost = true;
    };
    const timer = setInterval(() => void renew().catch(() => undefined), renewMs);
    // The row last run, while its end is not written: the next listing writes it (one statement), and
    // only then is its waiter told, so whoever waits on it sees the row ended.
    let ran: { row: InboxRow; outcome: PipelineOutcome; ending: { row: RowEnd; lease?: ThreadLease } } | undefined;
    try {
      // Solo, the rows this process waits on are all there is: no need to look again once none is left.
      const more = () => (this.#o.leases.solo === true ? false : !this.#closed);
      while (more() || this.#waiting.count(chat) > 0) {
        const ending = ran?.ending;
        const listing = listed ?? (await this.#waiting.listing(() => (leases.listReleasing ? leases.listReleasing(lease, inbox.owner, chat, ending) : this.#unfinishedTaking(chat))));
        listed = undefined;
        if (ran) this.#waiting.settle(chat, ran.row, ran.outcome);
        ran = undefined;
        const { rows } = listing;
        this.#waiting.settleFinished(chat, listing);
        // Let go with nothing listed; a waiter added meanwhile keeps the session going (#session's loop).
        if (listing.released) return true;
        const next = await this.#next(rows);
        if (!next) {
          this.#waiting.settleUnplanned(chat, rows);
          return false;
        }
        // Still the holder? A lease that lapsed (renewals failing or hung) now belongs to another
        // process, which takes the chat's next event; two processes must not both go on.
        if (!lost && performance.now() - renewed > renewMs) await renew();
        if (lost) return false;
        // Taken by the lease's statement already, or now. (A row taken there that planning passes over —
        // access narrowed in between — stays running under this process, as a row passed over stays
        // received: the inbox's recovery at the next start takes it up as things then stand.)
        const takenWithListing = sameRow(listing.taken, next.row) ? listing.taken : undefined;
        if (takenWithListing) inbox.taken(takenWithListing);
        const taken = takenWithListing ?? (await inbox.take(next.row, staleBeforeOf(this.#waiting.get(chat, next.row), this.#o.staleAfterMs, this.#o.clock)));
        if (!taken) {
          // Running in a live process that held the chat before (its lease lapsed mid-event): it ends it.
          await sleep(this.#o.poll.maxMs);
          continue;
        }
        // The turn's thread lease and the replies it sent, handed off as its run ends: let go and recorded
        // with the row's end.
        const handed = new TurnHandOffs();
        const result = await next.work.run(taken, handed).finally(() => handed.close());
        const { outcome } = result;
        const end = result.end && handed.ending(result.end);
        // The thread lease taken with the row (the chat's lease statement) goes as a handed-off one, if unused.
        await this.#alone.letGo(handed.unused(leases.takeAhead?.(chat)));
        if (end && leases.listReleasing && outcome !== 'stopping') {
          ran = { row: next.row, outcome, ending: { row: end, ...(handed.lease && { lease: handed.lease }) } };
          continue;
        }
        await this.#alone.letGo(handed.lease);
        if (end) await this.#alone.end(end);
        else await this.#alone.recordSent(handed.sent);
        this.#waiting.settle(chat, next.row, outcome);
        if (outcome === 'stopping') return false;
      }
      return false;
    } finally {
      clearInterval(timer);
      await this.#alone.letGo(leases.takeAhead?.(chat)); // taken with a row that never ran
      // The listing that was to end it failed (or never came): end it on its own.
      if (ran) {
        await this.#alone.letGo(ran.ending.lease);
        await this.#alone.end(ran.ending.row);
        this.#waiting.settle(chat, ran.row, ran.outcome);
      }
    }
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
