import type { EgressGuard } from './egress.ts';
import { EgressRefused, WebFetchError } from './errors.ts';
import { parseWebUrl, type SecretSources } from './url.ts';

/** Options for {@link egressRequest}; every connection goes through `guard`. */
export interface EgressRequestOptions {
  guard: EgressGuard;
  /** Bytes of body kept; the rest is not read. */
  maxBytes: number;
  /** Time for the whole request, redirects included. */
  timeoutMs: number;
  /** Checked against every URL, each redirect hop included. */
  secrets?: SecretSources;
  method?: 'GET' | 'POST';
  headers?: Record<string, string>;
  body?: string;
  /** Content types (without parameters) accepted for the final answer. Default: any. */
  accept?: readonly string[];
  signal?: AbortSignal;
}

/** What came back, after redirects. */
export interface EgressResponse {
  url: string;
  status: number;
  contentType: string;
  body: Buffer;
  truncated: boolean;
}

/** Redirects followed at most, each hop through the same checks. */
export const MAX_REDIRECTS = 5;
const REDIRECTS = new Set([301, 302, 303, 307, 308]);

/**
 * One HTTP request through the egress guard: each hop's URL is checked (spelling, secrets), its name
 * resolved and checked once, the connection pinned to that address with the peer checked again, and
 * redirects followed by hand (GET only, at most {@link MAX_REDIRECTS}). Throws `EgressRefused` or
 * {@link WebFetchError}; a 4xx/5xx answer is a WebFetchError with its status.
 */
export async function egressRequest(raw: string, options: EgressRequestOptions): Promise<EgressResponse> {
  const signal = AbortSignal.any([AbortSignal.timeout(options.timeoutMs), ...(options.signal ? [options.signal] : [])]);
  // undici 7 (~150 ms to load; discord.js brings its own undici 6, so it is not shared) comes with the
  // first web request, not at start.
  const [{ request }, { pinnedAgent }] = await Promise.all([import('undici'), import('./pinned.ts')]);
  let current = raw;
  for (let hop = 0; ; hop++) {
    const target = parseWebUrl(current, options.secrets);
    const address = await options.guard.check(target);
    const dispatcher = pinnedAgent({ target, address, guard: options.guard, timeoutMs: options.timeoutMs });
    try {
      const res = await request(target.url, {
        dispatcher,
        signal,
        method: options.method ?? 'GET',
        headers: { 'user-agent': 'Kazma/0.1 (+web_fetch)', ...options.headers },
        ...(options.body !== undefined && { body: options.body }),
      }).catch((error: unknown) => transportFailure(error, target.url.href, signal));
      const location = res.headers.location;
      if (REDIRECTS.has(res.statusCode) && typeof location === 'string' && (options.method ?? 'GET') === 'GET') {
        discard(res.body);
        if (hop >= MAX_REDIRECTS)
          throw new WebFetchError(`more than ${MAX_REDIRECTS} redirects from ${raw}; stopped at ${current}`);
        current = new URL(location, target.url).href;
        continue;
      }
      const contentType = String(res.headers['content-type'] ?? '')
        .split(';')[0]!
        .trim()
        .toLowerCase();
      if (res.statusCode >= 400) {
        discard(res.body);
        throw new WebFetchError(`${target.url.href} answered HTTP ${res.statusCode}`, { status: res.statusCode });
      }
      if (options.accept && !options.accept.includes(contentType)) {
        discard(res.body);
        throw new WebFetchError(
          `${target.url.href} is ${contentType || 'of no stated type'}; only ${options.accept.join(', ')} are read`,
          { status: res.statusCode },
        );
      }
      const { body, truncated } = await readCapped(res.body, options.maxBytes).catch((error: unknown) =>
        transportFailure(error, target.url.href, signal),
      );
      return { url: target.url.href, status: res.statusCode, contentType, body, truncated };
    } finally {
      await dispatcher.destroy().catch(() => undefined);
    }
  }
}

/** Reads at most `max` bytes, then stops reading (the rest is never downloaded). */
async function readCapped(
  stream: AsyncIterable<Buffer> & Discardable,
  max: number,
): Promise<{ body: Buffer; truncated: boolean }> {
  const parts: Buffer[] = [];
  let size = 0;
  for await (const chunk of stream) {
    if (size + chunk.length > max) {
      parts.push(chunk.subarray(0, max - size));
      discard(stream);
      return { body: Buffer.concat(parts), truncated: true };
    }
    parts.push(chunk);
    size += chunk.length;
  }
  return { body: Buffer.concat(parts), truncated: false };
}

interface Discardable {
  on(event: 'error', listener: () => void): unknown;
  destroy(): void;
}

/** Stops reading a body we do not want; undici reports the abort as an error nobody needs to hear. */
function discard(body: Discardable): void {
  body.on('error', () => undefined);
  body.destroy();
}

/** Passes a refusal on as it is; turns anything else into a WebFetchError that says whether time ran out. */
function transportFailure(error: unknown, url: string, signal: AbortSignal): never {
  if (error instanceof EgressRefused) throw error;
  // undici wraps what the connector refused; the refusal is the news, not the wrapper.
  if (error instanceof Error && error.cause instanceof EgressRefused) throw error.cause;
  if (signal.aborted) throw new WebFetchError(`${url} did not answer in time`, { cause: error });
  throw new WebFetchError(`could not fetch ${url}: ${error instanceof Error ? error.message : String(error)}`, {
    cause: error,
  });
}
