import type { Context } from 'hono';
import { streamSSE } from 'hono/streaming';
import type { UiCore } from './port.ts';

/** A comment line this often keeps proxies from closing an idle stream. */
const HEARTBEAT_MS = 25_000;

/**
 * The page's live updates: one server-sent event stream per open page, told `change` whenever the outbox
 * dispatches — the same signal every chat card is edited on — so a tap on Telegram redraws the page. Each
 * stream ends when its session expires or the server stops ({@link LiveStreams.stop}).
 */
export class LiveStreams {
  readonly #open = new Set<() => void>();

  constructor(private readonly core: Pick<UiCore, 'changes'>) {}

  /** Answers `GET /ui/events` for a session that ends at `until`. */
  stream(c: Context, until: Date, now: Date): Response {
    return streamSSE(c, async (stream) => {
      let end = () => {};
      const ended = new Promise<void>((resolve) => {
        end = resolve;
      });
      this.#open.add(end);
      stream.onAbort(end);
      const unsubscribe = this.core.changes(() => {
        void stream.writeSSE({ event: 'change', data: '' }).catch(end);
      });
      const beat = setInterval(() => void stream.write(': beat\n\n').catch(end), HEARTBEAT_MS);
      const expiry = setTimeout(end, Math.max(0, until.getTime() - now.getTime()));
      try {
        await stream.writeSSE({ event: 'ready', data: '' });
        await ended;
      } finally {
        unsubscribe();
        clearInterval(beat);
        clearTimeout(expiry);
        this.#open.delete(end);
      }
    });
  }

  /** Ends every open stream (a stop must not wait for browsers to hang up). */
  stop(): void {
    for (const end of [...this.#open]) end();
  }
}
