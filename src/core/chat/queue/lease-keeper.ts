/**
 * Keeps a chat's lease while its holder works through the chat's rows: renews it every `everyMs` in the
 * background, and says before each row whether it is still held. A lease that lapsed (renewals failing
 * or hung) belongs to another process by then, which takes the chat's next row; two processes must not
 * both go on. Renewal times are elapsed time (performance.now()), not the wall clock.
 */
export class LeaseKeeper {
  readonly #renew: () => Promise<boolean>;
  readonly #everyMs: number;
  readonly #timer: ReturnType<typeof setInterval>;
  #renewedAt = performance.now();
  #lost = false;

  constructor(renew: () => Promise<boolean>, everyMs: number) {
    this.#renew = renew;
    this.#everyMs = everyMs;
    this.#timer = setInterval(() => void this.#renewNow().catch(() => undefined), everyMs);
  }

  /** Still the holder? Renews first when the last renewal is older than a renewal period. */
  async stillHeld(): Promise<boolean> {
    if (!this.#lost && performance.now() - this.#renewedAt > this.#everyMs) await this.#renewNow();
    return !this.#lost;
  }

  stop(): void {
    clearInterval(this.#timer);
  }

  async #renewNow(): Promise<void> {
    if (await this.#renew()) this.#renewedAt = performance.now();
    else this.#lost = true;
  }
}
