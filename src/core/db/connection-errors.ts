// A database error that means "the server is not reachable right now" (an outage the outage log says
// once), as opposed to a query that failed on its own merits (a bug, a constraint) that must be logged.
import { withTimeout } from '../with-timeout.ts';

const CONNECTION_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EPIPE',
  'ENOTFOUND',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'EAI_AGAIN',
  // postgres.js
  'CONNECTION_CLOSED',
  'CONNECTION_ENDED',
  'CONNECTION_DESTROYED',
  'CONNECT_TIMEOUT',
  // PostgreSQL itself: the server is shutting down or starting up
  '57P01',
  '57P02',
  '57P03',
]);
const CONNECTION_TEXT = new RegExp(
  [
    'ECONNREFUSED',
    'ECONNRESET',
    'Connection terminated',
    'connection (is )?closed',
    'write CONNECTION_CLOSED',
    'the database system is (shutting down|starting up)',
  ].join('|'),
  'i',
);

/** True when `error` (or what it wraps: drizzle puts the driver's error in `cause`) is a lost connection. */
export function isConnectionError(error: unknown): boolean {
  for (
    let e = error, depth = 0;
    e && typeof e === 'object' && depth < 5;
    e = (e as { cause?: unknown }).cause, depth++
  ) {
    const { code, message } = e as { code?: unknown; message?: unknown };
    if (typeof code === 'string' && CONNECTION_CODES.has(code)) return true;
    if (typeof message === 'string' && CONNECTION_TEXT.test(message)) return true;
  }
  return false;
}

/**
 * Runs a statement, trying it again (up to `attempts` in all, default 3) when the connection failed rather
 * than the statement: a pooled connection broken by an outage fails once when next used, then is replaced,
 * so after the database comes back the first statements would each fail on a stale one. A database that is
 * really down fails every attempt, and the last error is thrown. With `timeoutMs`, an attempt that hangs
 * fails at once (not retried; it may still land later).
 */
export async function onLiveConnection<T>(
  statement: () => Promise<T>,
  options: { attempts?: number; timeoutMs?: number } = {},
): Promise<T> {
  const attempts = options.attempts ?? 3;
  for (let attempt = 1; ; attempt++) {
    try {
      const answer = statement();
      return await (options.timeoutMs === undefined ? answer : withTimeout(answer, options.timeoutMs));
    } catch (error) {
      if (attempt >= attempts || !isConnectionError(error)) throw error;
    }
  }
}
