/**
 * One FIFO per chat: work for a chat runs one item at a time, in arrival order, and nothing is
 * dropped while an item runs. Different chats run concurrently. A failed item does not stop the
 * items queued behind it (its error goes to its own caller).
 *
 * @example
 * const queues = new ChatQueues();
 * await queues.run('telegram:42', () => runner.message(event));
 */
export class ChatQueues {
  readonly #tails = new Map<string, Promise<void>>();
  readonly #pending = new Map<string, number>();
  /** Work that runs outside the FIFOs but must be waited for like it (a chat's turn-order session). */
  readonly #held = new Set<Promise<void>>();

  /** Runs `work` after everything already queued for `key`; resolves or rejects with its outcome. */
  run<T>(key: string, work: () => Promise<T>): Promise<T> {
    const previous = this.#tails.get(key) ?? Promise.resolve();
    const result = previous.then(work);
    // The tail never rejects, so one failure does not poison the chat's queue.
    const tail = result.then(
      () => undefined,
      () => undefined,
    );
    this.#tails.set(key, tail);
    this.#pending.set(key, (this.#pending.get(key) ?? 0) + 1);
    void tail.then(() => {
      const left = (this.#pending.get(key) ?? 1) - 1;
      if (left > 0) this.#pending.set(key, left);
      else this.#pending.delete(key);
      if (this.#tails.get(key) === tail) this.#tails.delete(key);
    });
    return result;
  }

  /** Items queued or running for `key`. */
  size(key: string): number {
    return this.#pending.get(key) ?? 0;
  }

  /** Items queued or running in every chat. */
  get total(): number {
    let sum = 0;
    for (const n of this.#pending.values()) sum += n;
    return sum;
  }

  /**
   * Counts `work` as running until it settles, so {@link idle} and {@link drain} wait for it too. For
   * work that orders itself (ChatTurns takes a chat's events in the inbox's order, across processes) and
   * only puts each event's run through {@link run}: between two events no queue holds it.
   */
  track(work: Promise<unknown>): void {
    const settled = work.then(
      () => undefined,
      () => undefined,
    );
    this.#held.add(settled);
    void settled.then(() => this.#held.delete(settled));
  }

  /** Resolves once every queue is empty and tracked work has settled, including work added while waiting. */
  async idle(): Promise<void> {
    while (this.#tails.size > 0 || this.#held.size > 0) await Promise.all([...this.#tails.values(), ...this.#held]);
  }

  /**
   * The shutdown drain: waits for queued and running work up to `timeoutMs`; past that calls `abort()`
   * (running turns stop and are taken up at the next start) and waits `graceMs` more for them to end.
   * Resolves 'idle' when everything finished in time, 'aborted' otherwise.
   */
  async drain(timeoutMs: number, abort: () => void, graceMs = 1000): Promise<'idle' | 'aborted'> {
    if ((await settlesWithin(this.idle(), timeoutMs)) === 'settled') return 'idle';
    abort();
    await settlesWithin(this.idle(), graceMs);
    return 'aborted';
  }
}

async function settlesWithin(work: Promise<unknown>, ms: number): Promise<'settled' | 'late'> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<'late'>((resolve) => (timer = setTimeout(() => resolve('late'), ms)));
  try {
    return await Promise.race([work.then(() => 'settled' as const), late]);
  } finally {
    clearTimeout(timer);
  }
}
