/** Options for {@link RefusalLimiter}. */
export interface RefusalLimiterOptions {
  /** How long one refusal covers a person in a chat; default 24 hours. */
  windowMs?: number;
  /** Elapsed-time seam, in ms; default the monotonic `performance.now()` (a window is elapsed time, not now). */
  now?: () => number;
  /** Entries kept before the oldest are forgotten (memory bound); default 10,000. */
  maxEntries?: number;
}

/**
 * Decides when a refused sender is told so: once per person per chat per window (a day by default),
 * so a stranger in a busy group gets one polite refusal, not one per message. In memory: a restart
 * may repeat a refusal once, which is harmless.
 *
 * @example
 * const refusals = new RefusalLimiter();
 * if (refusals.shouldTell('telegram:777', 'telegram:-100123')) await sayNo();
 */
export class RefusalLimiter {
  readonly #told = new Map<string, number>();
  readonly #windowMs: number;
  readonly #now: () => number;
  readonly #max: number;

  constructor(options: RefusalLimiterOptions = {}) {
    this.#windowMs = options.windowMs ?? 24 * 60 * 60_000;
    this.#now = options.now ?? (() => performance.now());
    this.#max = options.maxEntries ?? 10_000;
  }

  /** True (and remembered) when `who` has not been told in `chat` within the window. */
  shouldTell(who: string, chat: string): boolean {
    const key = `${who}\n${chat}`;
    const now = this.#now();
    const at = this.#told.get(key);
    if (at !== undefined && now - at < this.#windowMs) return false;
    this.#told.delete(key); // re-inserted last, so the map stays ordered oldest first
    this.#told.set(key, now);
    while (this.#told.size > this.#max) this.#told.delete(this.#told.keys().next().value!);
    return true;
  }
}
