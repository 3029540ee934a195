// Platforms show "typing…" for a few seconds per signal (Telegram ~5 s per sendChatAction, Discord ~10 s
// per typing POST). The core says once that a turn started (Surface.typing); this keeps the indicator
// alive until the reply goes out, the turn ends, or `maxMs` passes — whichever is first. Adapters set
// `intervalMs` to their platform's indicator.
import type { ChatRef } from '../../surface/index.ts';

/** Options for {@link TypingRefresher}. */
export interface TypingOptions {
  /** Sends one typing signal; a rejection stops the refresh for that chat. */
  send: (chat: ChatRef) => Promise<void>;
  /** Between two signals; default 4000 ms (Telegram's indicator lasts ~5 s; Discord passes 8000). */
  intervalMs?: number;
  /** Longest refresh for one turn; default 120,000 ms. */
  maxMs?: number;
}

export class TypingRefresher {
  readonly #active = new Map<ChatRef, { interval: NodeJS.Timeout; cap: NodeJS.Timeout }>();
  readonly #o: Required<TypingOptions>;

  constructor(options: TypingOptions) {
    this.#o = { intervalMs: 4000, maxMs: 120_000, ...options };
  }

  /** Shows typing in `chat` now and keeps it up; a second start while active changes nothing. */
  async start(chat: ChatRef): Promise<void> {
    if (this.#active.has(chat)) return;
    const interval = setInterval(() => void this.#send(chat), this.#o.intervalMs);
    const cap = setTimeout(() => this.stop(chat), this.#o.maxMs);
    interval.unref();
    cap.unref();
    this.#active.set(chat, { interval, cap });
    await this.#send(chat);
  }

  stop(chat: ChatRef): void {
    const timers = this.#active.get(chat);
    if (!timers) return;
    clearInterval(timers.interval);
    clearTimeout(timers.cap);
    this.#active.delete(chat);
  }

  stopAll(): void {
    for (const chat of [...this.#active.keys()]) this.stop(chat);
  }

  isActive(chat: ChatRef): boolean {
    return this.#active.has(chat);
  }

  async #send(chat: ChatRef): Promise<void> {
    try {
      await this.#o.send(chat);
    } catch {
      this.stop(chat); // e.g. the bot was removed from the chat: retrying would only fail again
    }
  }
}
