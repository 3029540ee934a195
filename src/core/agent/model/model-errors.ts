// Decides whether a failed model call is worth retrying, from the objects the clients really throw:
// the openai/anthropic SDKs' APIError (`.status`, `.headers` as a Headers object, `.error` body), which
// LangChain passes through or stamps (`lc_error_code`, a retryable symbol), and its own `TimeoutError`.
import { getRetryable } from '@langchain/core/errors';
import { systemClock, type Clock } from '../../clock.ts';
import { KazmaError } from '../../errors.ts';

/** How a failed call should be treated. `message` is the provider's own words, without LangChain's URL. */
export interface ModelErrorInfo {
  kind: 'transient' | 'permanent';
  status?: number;
  /** From `retry-after-ms` or `retry-after` (seconds or HTTP date) on the response. */
  retryAfterMs?: number;
  /** Nothing listens at the endpoint (the connection was refused at once): waiting will not help. */
  refused?: boolean;
  message: string;
}

// 408 timeout, 409 conflict (OpenAI uses it for lock contention), 425 too early, 429 rate limit: all pass.
const TRANSIENT_STATUS = new Set([408, 409, 425, 429]);
const NETWORK_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EPIPE',
  'EAI_AGAIN',
  'ENOTFOUND',
  'ENETUNREACH',
  'EHOSTUNREACH',
]);
// Class and error names that mean "never reached the model, or lost the answer on the way".
const NETWORK_NAMES = new Set(['APIConnectionError', 'APIConnectionTimeoutError', 'TimeoutError', 'FetchError']);
const NETWORK_TEXT =
  /socket hang up|fetch failed|network error|connection error|timed out|other side closed|ECONN|UND_ERR/i;

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null;

/** The error and what it wraps (`cause`, `error`, `response`), nearest first, a few levels deep. */
function layers(err: unknown): Obj[] {
  const out: Obj[] = [];
  const queue: unknown[] = [err];
  while (queue.length > 0 && out.length < 12) {
    const e = queue.shift();
    if (!isObj(e) || out.includes(e)) continue;
    out.push(e);
    queue.push(e.cause, e.error, e.response);
  }
  return out;
}

function header(headers: unknown, name: string): string | undefined {
  if (!isObj(headers)) return undefined;
  if (typeof headers.get === 'function') return (headers.get as (n: string) => string | null)(name) ?? undefined;
  const v = headers[name] ?? headers[name.toLowerCase()];
  return typeof v === 'string' ? v : undefined;
}

/** Milliseconds a response asked us to wait, or undefined; an HTTP date counts from now on `clock`. */
export function retryAfterMs(headers: unknown, clock: Clock = systemClock): number | undefined {
  const ms = Number(header(headers, 'retry-after-ms'));
  if (header(headers, 'retry-after-ms') !== undefined && Number.isFinite(ms) && ms >= 0) return ms;
  const raw = header(headers, 'retry-after')?.trim();
  if (!raw) return undefined;
  if (/^\d+(\.\d+)?$/.test(raw)) return Number(raw) * 1000;
  const at = Date.parse(raw);
  return Number.isNaN(at) ? undefined : Math.max(0, at - clock.now().getTime());
}

function statusOf(l: Obj[]): number | undefined {
  for (const e of l) {
    for (const key of ['status', 'statusCode']) {
      const v = e[key];
      if (typeof v === 'number' && v >= 100 && v < 600) return v;
    }
  }
  return undefined;
}

function isNetwork(l: Obj[]): boolean {
  return l.some(
    (e) =>
      (typeof e.code === 'string' && (NETWORK_CODES.has(e.code) || e.code.startsWith('UND_ERR'))) ||
      NETWORK_NAMES.has(String(e.name)) ||
      NETWORK_NAMES.has(e.constructor?.name ?? '') ||
      (typeof e.message === 'string' && NETWORK_TEXT.test(e.message)),
  );
}

function messageOf(err: unknown, l: Obj[]): string {
  // The provider's body message reads best; LangChain appends a troubleshooting URL we drop.
  const body = l.find((e) => isObj(e.error) && typeof e.error.message === 'string')?.error as Obj | undefined;
  const raw = typeof body?.message === 'string' ? body.message : err instanceof Error ? err.message : String(err);
  return raw.split('\n\nTroubleshooting URL:')[0]!.trim();
}

/**
 * Transient (worth retrying): transport failures, timeouts, 408/409/425/429 and 5xx.
 * Permanent: other 4xx (bad request, key, model name), a user's abort, and anything unrecognised.
 * @example classifyModelError(err) // { kind: 'transient', status: 429, retryAfterMs: 1000, message: 'Rate limit…' }
 */
export function classifyModelError(err: unknown): ModelErrorInfo {
  const l = layers(err);
  const status = statusOf(l);
  const message = messageOf(err, l);
  const headers = l.find((e) => isObj(e.headers))?.headers;
  const wait = retryAfterMs(headers);
  const refused = l.some(
    (e) => e.code === 'ECONNREFUSED' || (typeof e.message === 'string' && e.message.includes('ECONNREFUSED')),
  );
  const base = {
    ...(status !== undefined && { status }),
    ...(wait !== undefined && { retryAfterMs: wait }),
    ...(refused && { refused }),
    message,
  };
  if (status !== undefined) {
    return { kind: TRANSIENT_STATUS.has(status) || status >= 500 ? 'transient' : 'permanent', ...base };
  }
  // LangChain stamps a user's abort as not retryable; an abort caused by a timeout is retryable.
  const stamped = getRetryable(err);
  if (stamped === false) return { kind: 'permanent', ...base };
  if (isObj(err) && err.name === 'AbortError') {
    return { kind: /time/i.test(message) ? 'transient' : 'permanent', ...base };
  }
  const rateLimited = l.some((e) => e.lc_error_code === 'MODEL_RATE_LIMIT');
  if (isNetwork(l) || rateLimited || stamped === true) return { kind: 'transient', ...base };
  return { kind: 'permanent', ...base };
}

/** Where a model was called and where its key came from, for hints that name them. */
export interface ModelCallSite {
  /** The endpoint, with any password in it masked. */
  endpoint: string;
  /** `OPENAI_API_KEY (model.api_key)`, `model.api_key in kazma.yaml`, or `no key (model.api_key is empty)`. */
  keyFrom: string;
  /** The config key of the model name (`model.name`, `model.fallbacks[0].name`). */
  nameKey: string;
}

/** What the operator should do about a failure; shown under the ⚠️ message that ends the turn. */
export function modelErrorHint(info: ModelErrorInfo, site?: ModelCallSite): string {
  const at = site ? ` at ${site.endpoint}` : '';
  const key = site?.keyFrom ?? 'model.api_key';
  const name = site?.nameKey ?? 'model.name';
  if (info.status === 401) return `the provider${at} refused the key from ${key}: check that key`;
  if (info.status === 403) return `the key from ${key} may not use this model: check it and ${name}`;
  if (info.status === 404)
    return `the provider${at} does not know this model or endpoint: check ${name} and model.base_url`;
  if (info.status === 429) return `the model provider${at} is rate limiting us; try again later`;
  if (info.refused)
    return (
      `nothing answers${at || ' at the model endpoint'} (connection refused): is the model server running, and ` +
      `is model.base_url right?`
    );
  if (info.kind === 'transient') return `the model provider${at} is unreachable or overloaded; try again later`;
  return `the provider${at} rejected the request: check ${name} and model.base_url, or shorten the conversation (/new)`;
}

/** How one model in the chain failed, for the message of a chain-wide failure. */
export interface ModelFailure {
  model: string;
  attempts: number;
  info: ModelErrorInfo;
  site?: ModelCallSite;
}

/**
 * The model (and every fallback) failed. Carries the primary's classification, how many attempts it got,
 * a hint for the user, and the fallbacks' failures. `cause` is the primary's last raw error.
 */
export class ModelUnavailableError extends KazmaError {
  readonly kind: ModelErrorInfo['kind'];
  readonly status?: number;
  readonly retryAfterMs?: number;
  readonly model: string;
  readonly attempts: number;
  readonly hint: string;
  readonly fallbacks: readonly ModelFailure[];
  constructor(primary: ModelFailure, fallbacks: readonly ModelFailure[] = [], options?: { cause?: unknown }) {
    const hint = modelErrorHint(primary.info, primary.site);
    const describe = (f: ModelFailure): string =>
      `${f.model} failed after ${f.attempts} attempt${f.attempts === 1 ? '' : 's'}` +
      `${f.info.status !== undefined ? ` (HTTP ${f.info.status})` : ''}: ${f.info.message}`;
    const tail = fallbacks.length > 0 ? `; fallbacks: ${fallbacks.map(describe).join('; ')}` : '';
    super('model_unavailable', `${describe(primary)}${tail} — ${hint}`, options);
    this.kind = primary.info.kind;
    if (primary.info.status !== undefined) this.status = primary.info.status;
    if (primary.info.retryAfterMs !== undefined) this.retryAfterMs = primary.info.retryAfterMs;
    this.model = primary.model;
    this.attempts = primary.attempts;
    this.hint = hint;
    this.fallbacks = fallbacks;
  }
}
