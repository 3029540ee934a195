/** Options for {@link SignInLimiter}; the defaults are what `/ui/sign-in` uses. */
export interface SignInLimits {
  /** Failed attempts one address may make per window. Default 5. */
  perAddress?: number;
  /** Failed attempts all addresses together may make per window (guessing spread over many). Default 50. */
  overall?: number;
  /** Default 5 minutes. */
  windowMs?: number;
  /** Elapsed time; default `performance.now`. */
  now?: () => number;
}

/**
 * Counts failed sign-ins, per address and in all, over a sliding window; past either limit, sign-in is
 * refused (429) until the oldest failure leaves the window, whether the token is right or not, so a guess
 * made while limited learns nothing. Per process: the limit is per process, which only lowers it.
 */
export class SignInLimiter {
  readonly #failures = new Map<string, number[]>();
  readonly #all: number[] = [];
  readonly #perAddress: number;
  readonly #overall: number;
  readonly #windowMs: number;
  readonly #now: () => number;

  constructor(options: SignInLimits = {}) {
    this.#perAddress = options.perAddress ?? 5;
    this.#overall = options.overall ?? 50;
    this.#windowMs = options.windowMs ?? 5 * 60_000;
    this.#now = options.now ?? (() => performance.now());
  }

  /** Seconds until `address` may try again, or 0 when it may now. */
  retryAfter(address: string): number {
    const now = this.#now();
    const mine = this.#prune(this.#failures.get(address) ?? [], now);
    if (mine.length === 0) this.#failures.delete(address);
    this.#prune(this.#all, now);
    const waits = [
      mine.length >= this.#perAddress ? mine[0]! : undefined,
      this.#all.length >= this.#overall ? this.#all[0]! : undefined,
    ].filter((t) => t !== undefined);
    if (waits.length === 0) return 0;
    return Math.max(1, Math.ceil((Math.max(...waits) + this.#windowMs - now) / 1000));
  }

  failed(address: string): void {
    const now = this.#now();
    const mine = this.#failures.get(address) ?? [];
    mine.push(now);
    this.#failures.set(address, mine);
    this.#all.push(now);
  }

  /** Drops failures older than the window, in place; returns the list. */
  #prune(times: number[], now: number): number[] {
    while (times.length > 0 && times[0]! <= now - this.#windowMs) times.shift();
    return times;
  }
}
