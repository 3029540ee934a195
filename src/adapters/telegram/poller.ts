// Long polling with the offset in Kazma's hands. grammY's own loop moves past an update once its
// handler ran, whether or not the update was recorded, and its stop() confirms that offset to Telegram:
// an update that arrived while the database was down would be confirmed and lost. Here the offset moves
// past an update only once the inbox holds it; until then (the database is down) the poller waits and
// tries again, and a stop confirms only what was recorded, so Telegram delivers the rest again.
import { GrammyError, type Api } from 'grammy';
import type { Update } from 'grammy/types';
import type { Logger } from '../../core/log/index.ts';
import { InboxUnavailableError } from '../../core/chat/index.ts';
import { InvalidInboundEventError } from '../../core/surface/index.ts';
import { ALLOWED_UPDATES } from './client.ts';

/** Options for {@link TelegramPoller}. */
export interface TelegramPollerOptions {
  api: Api;
  /** Records one update; resolves 'stopping' when Kazma no longer takes updates, rejects when it could not record. */
  take(update: Update): Promise<'taken' | 'stopping'>;
  logger?: Logger;
  /** getUpdates long-poll timeout in seconds; default 30. */
  timeoutSeconds?: number;
  /** First pause after a failure to record; doubles up to 5 s. Default 1000 ms. */
  retryMs?: number;
}

export class TelegramPoller {
  readonly #o: TelegramPollerOptions;
  #offset = 0;
  #running = false;
  #abort: AbortController | undefined;
  #loop: Promise<void> | undefined;

  constructor(options: TelegramPollerOptions) {
    this.#o = options;
  }

  /** Clears a webhook (Telegram refuses getUpdates while one is set), then polls until {@link stop}. */
  async start(onFatal: (error: unknown) => void): Promise<void> {
    await this.#o.api.deleteWebhook();
    this.#running = true;
    this.#loop = this.#run().catch((error: unknown) => {
      this.#running = false;
      onFatal(error);
    });
  }

  /** Stops polling and confirms the offset of every recorded update (and no further). */
  async stop(): Promise<void> {
    if (!this.#loop) return;
    this.#running = false;
    this.#abort?.abort();
    await this.#loop;
    this.#loop = undefined;
    if (this.#offset > 0)
      await this.#o.api.getUpdates({ offset: this.#offset, limit: 1, timeout: 0 }).catch(() => undefined);
  }

  async #run(): Promise<void> {
    while (this.#running) {
      const updates = await this.#poll();
      for (const update of updates ?? []) {
        if (!(await this.#record(update))) return; // stopping: leave it unconfirmed, Telegram keeps it
        this.#offset = update.update_id + 1;
      }
    }
  }

  /** One getUpdates; undefined after an abort or a passing failure (after a pause). 401/409 end polling. */
  async #poll(): Promise<Update[] | undefined> {
    this.#abort = new AbortController();
    try {
      return await this.#o.api.getUpdates(
        { offset: this.#offset, timeout: this.#o.timeoutSeconds ?? 30, allowed_updates: [...ALLOWED_UPDATES] },
        // grammY types its signal with the abort-controller polyfill; Node's own is what it uses at run time.
        this.#abort.signal as Parameters<Api['getUpdates']>[1],
      );
    } catch (error) {
      if (!this.#running) return undefined;
      if (error instanceof GrammyError && (error.error_code === 401 || error.error_code === 409)) throw error;
      this.#o.logger?.warn({ err: error }, 'getUpdates failed; polling again shortly');
      await this.#sleep(3000);
      return undefined;
    }
  }

  /** Records one update, waiting out a database outage; false when stopping first. */
  async #record(update: Update): Promise<boolean> {
    let pause = this.#o.retryMs ?? 1000;
    let told = false;
    while (this.#running) {
      try {
        return (await this.#o.take(update)) === 'taken';
      } catch (error) {
        if (error instanceof InvalidInboundEventError) {
          this.#o.logger?.warn({ err: error, update: update.update_id }, 'a malformed Telegram update was skipped');
          return true;
        }
        // Only a database that could not take it is worth waiting for. Any other failure would come back on
        // every try and hold up every update behind it, every chat's, for ever: it is logged and passed over.
        if (!(error instanceof InboxUnavailableError)) {
          this.#o.logger?.error(
            { err: error, update: update.update_id },
            'a Telegram update could not be handled and was skipped, so the updates behind it are not held up',
          );
          return true;
        }
        if (!told)
          this.#o.logger?.error(
            { err: error, update: update.update_id },
            'could not record a Telegram update; holding the poll offset and retrying until it is recorded',
          );
        told = true;
        await this.#sleep(pause);
        pause = Math.min(pause * 2, 5_000); // a database back from an outage is noticed within seconds
      }
    }
    return false;
  }

  #sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const timer = setTimeout(resolve, ms);
      this.#abort?.signal.addEventListener(
        'abort',
        () => {
          clearTimeout(timer);
          resolve();
        },
        { once: true },
      );
    });
  }
}
