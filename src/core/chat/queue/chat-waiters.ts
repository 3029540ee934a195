// The events a process waits on, per chat, until they are run here or elsewhere (see ChatTurns), and the
// one rule for reading a listing of the inbox against them.
import type { InboxKey, InboxRow } from '../inbox/inbox.ts';
import type { PipelineOutcome } from '../intake/pipeline-types.ts';
import type { AheadLease, TakeRequest } from '../../turns/index.ts';
import type { Clock } from '../../clock.ts';

interface Waiter {
  key: InboxKey;
  resolve: (outcome: PipelineOutcome) => void;
  promise: Promise<PipelineOutcome>;
  /** Recovery: a running row of this event untouched since then was left by a stopped process. */
  staleBefore?: Date;
  /** The event is a turn on the chat's current thread (TakeRequest.threadLease). */
  threadLease: boolean;
  /** When it was added (ChatWaiters' clock): only a listing begun later can say it is finished. */
  since: number;
}

/** A chat's unfinished rows, and when the listing began (see {@link ChatWaiters.listing}). */
export interface Listing {
  rows: InboxRow[];
  asOf: number;
  /** The listing also let the chat's lease go (none left; ChatLeases.listReleasing). */
  released?: boolean;
  /** A row the listing's statement also took for this process (ChatLeases.acquireListing's `take`). */
  taken?: InboxRow;
  /** The thread lease taken with `taken`, for its run (ChatLeases.acquireListing's `ahead`). */
  ahead?: AheadLease;
}

/**
 * Waiters by chat and inbox key, and listings stamped on the same clock.
 *
 * A listing is the inbox as its statement found it. An event recorded and submitted while a listing was
 * under way is not in it, though its waiter is there when the rows come back; not listed then does not
 * mean another process ran it. So a listing settles a waiter as finished only when the waiter was added
 * before the listing began.
 */
export class ChatWaiters {
  readonly #waiting = new Map<string, Map<string, Waiter>>();
  #clock = 0;

  /** The chat's waiter for the event, added when there is none yet. */
  add(chat: string, key: InboxKey, options: { staleBefore?: Date; threadLease?: boolean }): Waiter {
    const waiters = this.#waiting.get(chat) ?? new Map<string, Waiter>();
    this.#waiting.set(chat, waiters);
    const id = idOf(key);
    let waiter = waiters.get(id);
    if (!waiter) {
      let resolve!: (outcome: PipelineOutcome) => void;
      const promise = new Promise<PipelineOutcome>((r) => (resolve = r));
      waiter = {
        key,
        resolve,
        promise,
        threadLease: options.threadLease === true,
        since: this.#clock++,
        ...(options.staleBefore && { staleBefore: options.staleBefore }),
      };
      waiters.set(id, waiter);
    }
    return waiter;
  }

  get(chat: string, key: InboxKey): Waiter | undefined {
    return this.#waiting.get(chat)?.get(idOf(key));
  }

  /** The event this process waited on first in the chat, to take with a listing: most often the chat's next row. */
  takeRequest(chat: string, staleAfterMs: number, clock: Clock): TakeRequest | undefined {
    const first: Waiter | undefined = this.#waiting.get(chat)?.values().next().value;
    return (
      first && {
        key: first.key,
        staleBefore: staleBeforeOf(first, staleAfterMs, clock),
        threadLease: first.threadLease,
      }
    );
  }

  /** How many events of the chat this process waits on. */
  count(chat: string): number {
    return this.#waiting.get(chat)?.size ?? 0;
  }

  chats(): string[] {
    return [...this.#waiting.keys()];
  }

  /** A listing stamped with when it began: `list` gives the rows, or the rows with what became of the lease. */
  async listing(
    list: () => Promise<InboxRow[] | { rows: InboxRow[]; released?: boolean; taken?: InboxRow; ahead?: AheadLease }>,
  ): Promise<Listing> {
    const asOf = this.#clock;
    const listed = await list();
    return Array.isArray(listed) ? { rows: listed, asOf } : { ...listed, asOf };
  }

  /** Now on the clock, for a listing whose statement is about to begin. */
  now(): number {
    return this.#clock;
  }

  /**
   * Resolves the waiters, added before the listing began, whose events are no longer unfinished: another process ran
   * them.
   */
  settleFinished(chat: string, listing: Listing): void {
    const left = new Set(listing.rows.map(idOf));
    for (const [id, waiter] of this.#waiting.get(chat) ?? [])
      if (waiter.since < listing.asOf && !left.has(id)) this.#settle(chat, id, waiter, 'duplicate');
  }

  /**
   * Waiters whose rows no longer wait their turn (access or the command list changed since they were
   * recorded) are let go: the row stays unfinished, and the next inbox sweep runs it as it is now.
   */
  settleUnplanned(chat: string, unfinished: InboxRow[]): void {
    const left = new Set(unfinished.map(idOf));
    for (const [id, waiter] of this.#waiting.get(chat) ?? [])
      if (left.has(id)) this.#settle(chat, id, waiter, 'duplicate');
  }

  /** Lets every waiter of the chat go with 'stopping' (this process stops; the rows stay in the inbox). */
  letGo(chat: string): void {
    for (const [id, waiter] of this.#waiting.get(chat) ?? []) this.#settle(chat, id, waiter, 'stopping');
  }

  /** Resolves the event's waiter, if any, with what became of it. */
  settle(chat: string, key: InboxKey, outcome: PipelineOutcome): void {
    const waiter = this.get(chat, key);
    if (waiter) this.#settle(chat, idOf(key), waiter, outcome);
  }

  #settle(chat: string, id: string, waiter: Waiter, outcome: PipelineOutcome): void {
    const waiters = this.#waiting.get(chat);
    waiters?.delete(id);
    if (waiters?.size === 0) this.#waiting.delete(chat);
    waiter.resolve(outcome);
  }
}

/**
 * Before when a running row's owner counts as stopped: the waiter's own time (recovery), else `staleAfterMs`
 * ago on `clock`.
 */
export function staleBeforeOf(waiter: { staleBefore?: Date } | undefined, staleAfterMs: number, clock: Clock): Date {
  return waiter?.staleBefore ?? new Date(clock.now().getTime() - staleAfterMs);
}

function idOf(key: InboxKey): string {
  return `${key.platform}\u0000${key.eventId}`;
}
