/** What a hidden value is replaced with, in logs, approval cards and tool output. */
export const MASK = '•••';

/** Options for {@link maskSecrets}. */
export interface MaskOptions {
  /** Exact secret values (tokens, API keys) to hide wherever they occur inside a string. */
  secrets?: readonly string[];
  /**
   * Also hide by what a value is called, whatever it is: a field named like a credential (`token`,
   * `password`, …) and the word after `Bearer`/`Basic`. Default true: for logs and the configuration,
   * where a name is often all there is to go on. Approval cards and the approvals API pass false: there
   * a name says nothing about its value (`secret_name: prod-db`, `token_id`), and hiding it hides what
   * the call acts on. Values that are secrets by themselves are hidden either way.
   */
  byName?: boolean;
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
// Keys recognisable by their form alone (hidden wherever they appear, whatever they are called). The
// prefix that names the kind of key stays, so an approver still sees "an OpenAI key" (`sk-•••`).
const KEY_FORMATS: readonly RegExp[] = [
  /\b(sk-(?:proj-|ant-[a-z0-9]+-)?)[A-Za-z0-9_-]{20,}/g,
  /\b(xox[abposre]-|xapp-)[A-Za-z0-9-]{10,}/g,
  /\b(gh[pousr]_)[A-Za-z0-9]{30,}/g,
  /\b(github_pat_)[A-Za-z0-9_]{22,}/g,
  /\b(AIza)[0-9A-Za-z_-]{35}\b/g,
  /\b((?:AKIA|ASIA))[0-9A-Z]{16}\b/g,
  /\b(\d{8,10}:)[A-Za-z0-9_-]{35}\b/g, // a Telegram bot token
  /\b()eyJ[A-Za-z0-9_-]{5,}\.eyJ[A-Za-z0-9_-]{5,}\.[A-Za-z0-9_-]{5,}/g, // a JWT
  /()-----BEGIN (?:[A-Z0-9]+ )*PRIVATE KEY-----[\s\S]*?-----END (?:[A-Z0-9]+ )*PRIVATE KEY-----/g,
];
// A very short "secret" would mask ordinary text everywhere (a one-letter value masks every "a").
const MIN_SECRET_LENGTH = 4;

/** True when a field called `key` holds a credential, whatever its value looks like. */
export function isSecretKey(key: string): boolean {
  const normalized = key.toLowerCase().replace(/[^a-z0-9]/g, '');
  return SECRET_KEY.test(normalized) && !NOT_SECRET_KEY.test(normalized);
}

/**
 * Returns a copy of `value` with credentials hidden (recursively through objects and arrays): configured
 * secret values and keys known by their form inside any string are replaced, a URL's password becomes
 * `scheme://user:•••@host`; with `byName` (the default) fields named like a credential become
 * {@link MASK} and `Bearer <token>` loses its token.
 * Non-plain objects (Date, Buffer, class instances) are returned as they are.
 *
 * @example
 * maskSecrets({ url: 'postgres://u:pw@h/db', api_key: 'sk-1' }) // { url: 'postgres://u:•••@h/db', api_key: '•••' }
 */
export function maskSecrets<T>(value: T, options: MaskOptions = {}): T {
  const byName = options.byName ?? true;
  const secrets = [...new Set(options.secrets ?? [])]
    .filter((secret) => secret.length >= MIN_SECRET_LENGTH)
    // Longest first, so a secret that contains another is hidden whole.
    .sort((a, b) => b.length - a.length);
  return walk(value, { secrets, byName }, new WeakMap()) as T;
}

/**
 * Masks one string: configured secret values, URL passwords, — with `formats` — keys known by their form
 * (`sk-…`, `xoxb-…`, `ghp_…`, JWTs, PEM private keys, …) and — unless `byName` is false — bearer tokens.
 * `formats` is for what people read (cards, the API, logs: maskSecrets always uses it), not for a tool's
 * output on its way to the model: a secret the user asked the vault for must reach the user.
 */
export function maskText(
  text: string,
  secrets: readonly string[] = [],
  options: { byName?: boolean; formats?: boolean } = {},
): string {
  let out = text;
  for (const secret of secrets) {
    if (secret.length >= MIN_SECRET_LENGTH) out = out.split(secret).join(MASK);
  }
  if (options.formats) for (const format of KEY_FORMATS) out = out.replace(format, `$1${MASK}`);
  out = out.replace(URL_PASSWORD, `$1${MASK}@`);
  return (options.byName ?? true) ? out.replace(BEARER, `$1 ${MASK}`) : out;
}

interface Walk {
  secrets: readonly string[];
  byName: boolean;
}

function walk(value: unknown, how: Walk, seen: WeakMap<object, unknown>): unknown {
  if (typeof value === 'string') return maskText(value, how.secrets, { ...how, formats: true });
  if (value === null || typeof value !== 'object') return value;
  const known = seen.get(value);
  if (known !== undefined) return known; // cycles: reuse the copy already being built
  if (Array.isArray(value)) {
    const copy: unknown[] = [];
    seen.set(value, copy);
    for (const item of value) copy.push(walk(item, how, seen));
    return copy;
  }
  const proto = Object.getPrototypeOf(value) as unknown;
  if (proto !== Object.prototype && proto !== null) return value;
  const copy: Record<string, unknown> = {};
  seen.set(value, copy);
  for (const [key, item] of Object.entries(value)) {
    // An absent or empty value reveals nothing and "not set" is useful to see.
    const hide = how.byName && isSecretKey(key) && item !== undefined && item !== null && item !== '';
    copy[key] = hide ? MASK : walk(item, how, seen);
  }
  return copy;
}
