/** What a hidden value is replaced with, in logs, approval cards and tool output. */
export const MASK = '•••';

/** Options for {@link maskSecrets}. */
export interface MaskOptions {
  /** Exact secret values (tokens, API keys) to hide wherever they occur inside a string. */
  secrets?: readonly string[];
}

// Matched against the key lowercased with separators removed, so `api_key`, `apiKey`, `API-KEY` agree.
const SECRET_KEY = new RegExp(
  [
    'token',
    'secret',
    'password',
    'passwd',
    'passphrase',
    'apikey',
    'authorization',
    'cookie',
    'credential',
    'privatekey',
    'accesskey',
    'signingkey',
    'pass$',
    '^auth$',
    'sessionid',
  ].join('|'),
);
// Counters such as `max_tokens` talk about tokens without being one.
const NOT_SECRET_KEY = /tokens$|tokencount|tokenlimit/;
const URL_PASSWORD = /\b([a-z][a-z0-9+.-]*:\/\/[^\s:@/]*:)([^\s@/]+)@/gi;
const BEARER = /\b(Bearer|Basic)\s+[A-Za-z0-9._~+/=-]{8,}/g;
// A very short "secret" would mask ordinary text everywhere (a one-letter value masks every "a").
const MIN_SECRET_LENGTH = 4;

/** True when a field called `key` holds a credential, whatever its value looks like. */
export function isSecretKey(key: string): boolean {
  const normalized = key.toLowerCase().replace(/[^a-z0-9]/g, '');
  return SECRET_KEY.test(normalized) && !NOT_SECRET_KEY.test(normalized);
}

/**
 * Returns a copy of `value` with credentials hidden: fields named like a credential become
 * {@link MASK} (recursively through objects and arrays), configured secret values inside any string
 * are replaced, a URL's password becomes `scheme://user:•••@host`, and `Bearer <token>` loses its token.
 * Non-plain objects (Date, Buffer, class instances) are returned as they are.
 *
 * @example
 * maskSecrets({ url: 'postgres://u:pw@h/db', api_key: 'sk-1' }) // { url: 'postgres://u:•••@h/db', api_key: '•••' }
 */
export function maskSecrets<T>(value: T, options: MaskOptions = {}): T {
  const secrets = [...new Set(options.secrets ?? [])]
    .filter((secret) => secret.length >= MIN_SECRET_LENGTH)
    // Longest first, so a secret that contains another is hidden whole.
    .sort((a, b) => b.length - a.length);
  return walk(value, secrets, new WeakMap()) as T;
}

/** Masks one string: configured secret values, URL passwords and bearer tokens. */
export function maskText(text: string, secrets: readonly string[] = []): string {
  let out = text;
  for (const secret of secrets) {
    if (secret.length >= MIN_SECRET_LENGTH) out = out.split(secret).join(MASK);
  }
  return out.replace(URL_PASSWORD, `$1${MASK}@`).replace(BEARER, `$1 ${MASK}`);
}

function walk(value: unknown, secrets: readonly string[], seen: WeakMap<object, unknown>): unknown {
  if (typeof value === 'string') return maskText(value, secrets);
  if (value === null || typeof value !== 'object') return value;
  const known = seen.get(value);
  if (known !== undefined) return known; // cycles: reuse the copy already being built
  if (Array.isArray(value)) {
    const copy: unknown[] = [];
    seen.set(value, copy);
    for (const item of value) copy.push(walk(item, secrets, seen));
    return copy;
  }
  const proto = Object.getPrototypeOf(value) as unknown;
  if (proto !== Object.prototype && proto !== null) return value;
  const copy: Record<string, unknown> = {};
  seen.set(value, copy);
  for (const [key, item] of Object.entries(value)) {
    // An absent or empty value reveals nothing and "not set" is useful to see.
    const hide = isSecretKey(key) && item !== undefined && item !== null && item !== '';
    copy[key] = hide ? MASK : walk(item, secrets, seen);
  }
  return copy;
}
