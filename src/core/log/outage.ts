import type { Logger } from './logger.ts';

/** Options for {@link OutageLog}. */
export interface OutageLogOptions {
  logger: Logger;
  /** The dependency, in words: `redis`, `the database`. */
  what: string;
  /** Its address, secrets masked: `redis://127.0.0.1:6379`. */
  where: string;
  /** What waits while it is down: `card deliveries, sweeps, background tasks and reminders wait`. */
  waiting: string;
  /** Resolves when the dependency answers again. */
  ping: () => Promise<void>;
  /** How often to ask whether it is back. Default 1 s. */
  everyMs?: number;
  /** Told once when it answers again (work that failed meanwhile can be derived again). */
  onBack?: () => void;
}

/**
 * Says an outage once: one warning when a dependency first fails (with its address and what waits
 * for it), silence while it stays down (the clients retry by themselves and would repeat their error
 * many times a second), and one line when it answers again.
 */
export class OutageLog {
  readonly #o: OutageLogOptions;
  #timer: NodeJS.Timeout | undefined;

  constructor(options: OutageLogOptions) {
    this.#o = options;
  }

  get down(): boolean {
    return this.#timer !== undefined;
  }

  /** A failure was seen. The first of an outage is logged; the rest only at debug level. */
  failed(error: unknown): void {
    const err = error instanceof Error ? error.message : String(error);
    if (this.down) {
      this.#o.logger.debug({ err }, `${this.#o.what} still unreachable`);
      return;
    }
    this.#o.logger.warn(
      { where: this.#o.where, err },
      `${this.#o.what} unreachable at ${this.#o.where}; ${this.#o.waiting} until it is back`,
    );
    this.#timer = setInterval(() => void this.#probe(), this.#o.everyMs ?? 1_000);
    this.#timer.unref();
  }

  stop(): void {
    clearInterval(this.#timer);
    this.#timer = undefined;
  }

  async #probe(): Promise<void> {
    try {
      await this.#o.ping();
    } catch {
      return;
    }
    if (!this.down) return;
    this.stop();
    this.#o.logger.info({ where: this.#o.where }, `${this.#o.what} is back at ${this.#o.where}`);
    this.#o.onBack?.();
  }
}
