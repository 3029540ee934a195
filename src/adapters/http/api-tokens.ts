import { createHash, timingSafeEqual } from 'node:crypto';

/**
 * Who an API caller is: an operator (reads, and decides as themself) or the holder of the shared
 * `http.api_token` (reads only: a shared token names no person, so it cannot decide).
 */
export type ApiCaller = { kind: 'operator'; name: string } | { kind: 'reader' };

/** The tokens the API accepts, as kazma.yaml gives them (empty tokens are ignored). */
export interface ApiTokenOptions {
  /** `http.api_token`: may read the approvals list. */
  readToken: string;
  /** `access.operators[]`: each one's `api_token` decides as that operator. */
  operators: ReadonlyArray<{ name: string; api_token?: string }>;
}

/**
 * Tells who sent an `Authorization: Bearer <token>` header.
 *
 * @example
 * const tokens = new ApiTokens({ readToken: '', operators: [{ name: 'maya', api_token: 'm…' }] });
 * tokens.identify('Bearer m…'); // { kind: 'operator', name: 'maya' }
 */
export class ApiTokens {
  readonly #entries: Array<{ digest: Buffer; caller: ApiCaller }>;

  constructor(options: ApiTokenOptions) {
    this.#entries = [
      ...options.operators
        .filter((o) => o.api_token)
        .map((o) => ({ digest: digest(o.api_token!), caller: { kind: 'operator', name: o.name } as const })),
      ...(options.readToken ? [{ digest: digest(options.readToken), caller: { kind: 'reader' } as const }] : []),
    ];
  }

  /** False when no token is configured: the API then answers every request 401. */
  get enabled(): boolean {
    return this.#entries.length > 0;
  }

  /**
   * SHA-256 (hex) of the token configured now for `caller`, or undefined when it has none: a web session
   * keeps the digest of the token it was opened with, and is refused once they differ (the token rotated).
   */
  digestOf(caller: ApiCaller): string | undefined {
    const entry = this.#entries.find((e) =>
      caller.kind === 'reader'
        ? e.caller.kind === 'reader'
        : e.caller.kind === 'operator' && e.caller.name === caller.name,
    );
    return entry?.digest.toString('hex');
  }

  /** The caller the header names, or undefined for a missing, malformed or unknown token. */
  identify(header: string | undefined): ApiCaller | undefined {
    const bearer = /^Bearer (.+)$/.exec(header ?? '');
    // Digests have one length, so timingSafeEqual applies; every entry is compared, with no early
    // exit, so the time taken does not tell which operator's token (if any) was tried.
    const given = digest(bearer?.[1] ?? '');
    let found: ApiCaller | undefined;
    for (const entry of this.#entries) {
      const same = timingSafeEqual(given, entry.digest);
      found = same && !found ? entry.caller : found;
    }
    return bearer ? found : undefined;
  }
}

function digest(token: string): Buffer {
  return createHash('sha256').update(token).digest();
}
