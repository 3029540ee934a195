// The one retry loop for model calls (clients are built with maxRetries: 0). It retries only what the
// classifier calls transient, waits with capped exponential backoff and full jitter so many turns
// failing together do not retry in lockstep, and honours a provider's Retry-After.
import { classifyModelError, type ModelErrorInfo } from './model-errors.ts';

export interface RetryOptions {
  /** Retries after the first attempt; 0 means one attempt. */
  maxRetries: number;
  /** First backoff ceiling; doubles per retry. Default 500 ms. */
  baseDelayMs?: number;
  /** Longest wait, Retry-After included. Default 30000 ms. */
  capDelayMs?: number;
  /** Seam for tests. Default: a timer that an aborted `signal` cuts short. */
  sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
  /** Seam for tests: a number in [0, 1). Default Math.random. */
  random?: () => number;
  /** Decides transient vs permanent. Default `classifyModelError`. */
  classify?: (err: unknown) => ModelErrorInfo;
  /** Once aborted, no further attempt is made and the last error is thrown. */
  signal?: AbortSignal;
  /** Called before each wait; for logs. */
  onRetry?: (e: { attempt: number; delayMs: number; info: ModelErrorInfo; error: unknown }) => void;
}

/** The end of a retried call: its value, or the last error with its classification. */
export type RetryOutcome<T> =
  | { ok: true; value: T; attempts: number }
  | { ok: false; error: unknown; info: ModelErrorInfo; attempts: number };

/**
 * Wait before retry number `retry` (1-based): Retry-After if given, else random in [0, base·2^(retry-1)], both capped.
 */
export function backoffDelay(
  retry: number,
  info: ModelErrorInfo,
  o: { baseDelayMs: number; capDelayMs: number; random: () => number },
): number {
  if (info.retryAfterMs !== undefined) return Math.min(o.capDelayMs, info.retryAfterMs);
  const ceiling = Math.min(o.capDelayMs, o.baseDelayMs * 2 ** (retry - 1));
  return Math.floor(o.random() * ceiling);
}

/** Like `withRetry`, but reports the failure instead of throwing it, with the attempt count. */
export async function retryOutcome<T>(
  fn: (attempt: number) => Promise<T>,
  opts: RetryOptions,
): Promise<RetryOutcome<T>> {
  const classify = opts.classify ?? classifyModelError;
  const timing = {
    baseDelayMs: opts.baseDelayMs ?? 500,
    capDelayMs: opts.capDelayMs ?? 30_000,
    random: opts.random ?? Math.random,
  };
  const sleep = opts.sleep ?? abortableSleep;
  for (let attempt = 1; ; attempt++) {
    try {
      return { ok: true, value: await fn(attempt), attempts: attempt };
    } catch (error) {
      const info = classify(error);
      const outOfTries = attempt > opts.maxRetries;
      if (info.kind === 'permanent' || outOfTries || opts.signal?.aborted)
        return { ok: false, error, info, attempts: attempt };
      const delayMs = backoffDelay(attempt, info, timing);
      opts.onRetry?.({ attempt, delayMs, info, error });
      await sleep(delayMs, opts.signal);
      if (opts.signal?.aborted) return { ok: false, error, info, attempts: attempt };
    }
  }
}

/**
 * Runs `fn` until it succeeds, fails permanently, or has had `maxRetries` retries; throws the last error.
 * @example await withRetry(() => model.invoke(messages), { maxRetries: 3 })
 */
export async function withRetry<T>(fn: (attempt: number) => Promise<T>, opts: RetryOptions): Promise<T> {
  const out = await retryOutcome(fn, opts);
  if (out.ok) return out.value;
  throw out.error;
}

function abortableSleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal?.aborted) return resolve();
    const done = (): void => {
      clearTimeout(timer);
      signal?.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal?.addEventListener('abort', done, { once: true });
  });
}
