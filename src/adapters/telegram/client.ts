// The grammY client Kazma uses: the real Bot API at `telegram.api_root`, with @grammyjs/auto-retry so
// a 429 is retried after Telegram's retry_after (up to `maxDelaySeconds`) and a 5xx after a capped
// backoff. Transport errors (a reset keep-alive socket, a timeout) get a few quick retries of our own;
// auto-retry's would never end (`rethrowHttpErrors`), holding a turn — and shutdown — hostage.
import { autoRetry } from '@grammyjs/auto-retry';
import { Bot, HttpError, type Transformer } from 'grammy';

/** How API calls are retried. */
export interface RetryOptions {
  /** Retries of one call after a 429 or a 5xx; default 3. */
  maxRetryAttempts?: number;
  /** A 429 asking to wait longer than this fails instead; default 60. */
  maxDelaySeconds?: number;
  /** Retries after a transport error, waiting 250 ms, then 500 ms, …; default 3. */
  transportRetries?: number;
}

/** The update kinds Kazma acts on; Telegram sends nothing else. */
export const ALLOWED_UPDATES = ['message', 'callback_query'] as const;

/**
 * A grammY Bot for `token` at `apiRoot` (a trailing slash is removed: grammY rejects it).
 * @example createBot({ token, apiRoot: 'https://api.telegram.org' })
 */
export function createBot(options: { token: string; apiRoot: string; retry?: RetryOptions }): Bot {
  const bot = new Bot(options.token, { client: { apiRoot: options.apiRoot.replace(/\/+$/, '') } });
  // Installed first, so it runs inside auto-retry: a call that keeps failing to connect still fails.
  bot.api.config.use(retryTransport(options.retry?.transportRetries ?? 3));
  bot.api.config.use(
    autoRetry({
      maxRetryAttempts: options.retry?.maxRetryAttempts ?? 3,
      maxDelaySeconds: options.retry?.maxDelaySeconds ?? 60,
      rethrowHttpErrors: true,
    }),
  );
  return bot;
}

/**
 * Retries a call that got no HTTP answer, `retries` times with a doubling pause from 250 ms. A retry
 * may repeat a message whose answer was lost on the way back; losing the reply would be worse.
 */
export function retryTransport(retries: number): Transformer {
  return async (prev, method, payload, signal) => {
    for (let attempt = 0; ; attempt++) {
      try {
        return await prev(method, payload, signal);
      } catch (error) {
        if (!(error instanceof HttpError) || attempt >= retries || signal?.aborted) throw error;
        await new Promise((resolve) => setTimeout(resolve, 250 * 2 ** attempt));
      }
    }
  };
}
