// An adapter acknowledges an event once it is recorded and lets the turn run on without waiting for
// it, so neither a webhook answer nor a polling loop waits on a model. That work still has to be
// waited for somewhere — by tests, and by shutdown — so each adapter tracks it here.

/**
 * The work an adapter started and did not wait for. `track()` never lets a rejection out: an adapter
 * handles (logs, answers) its own failures before tracking, and a handler that itself failed must
 * neither crash the process as an unhandled rejection nor stay in the set forever.
 *
 * @example
 * const inflight = new InFlight();
 * inflight.track(accepted.done.then(reply, logFailure));
 * await inflight.idle(); // every turn started so far has finished or paused
 */
export class InFlight {
  readonly #pending = new Set<Promise<void>>();

  /** Keeps `work` until it settles, whether it resolves or rejects. */
  track(work: Promise<unknown>): void {
    const settled = work.then(
      () => undefined,
      () => undefined,
    );
    this.#pending.add(settled);
    void settled.then(() => this.#pending.delete(settled));
  }

  /** Pieces of work tracked and not yet settled. */
  get size(): number {
    return this.#pending.size;
  }

  /** Resolves once nothing is in flight, including work tracked while waiting; never rejects. */
  async idle(): Promise<void> {
    while (this.#pending.size > 0) await Promise.all([...this.#pending]);
  }
}
