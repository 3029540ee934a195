import { isSecretEnv } from '../secrets/index.ts';
import { stripBrackets } from './address.ts';
import { EgressRefused } from './errors.ts';

/** A URL the egress guard accepted the spelling of; `key` is `host:port` as `web.allow_private` names it. */
export interface WebTarget {
  url: URL;
  /** The host name or IP literal, lower case, without brackets. */
  host: string;
  port: number;
  key: string;
}

/** What a URL is checked against for secrets: the configured secrets, and credential-looking environment values. */
export interface SecretSources {
  secrets?: readonly string[];
  env?: Readonly<Record<string, string | undefined>>;
}

// Shorter values ("1", "true", "dev") would match ordinary URLs; a real credential is longer.
const MIN_SECRET_LENGTH = 8;

/**
 * Reads `raw` as a web URL and refuses what the egress guard will not follow, whatever it resolves
 * to: a scheme other than http(s), userinfo (`http://example.com@10.0.0.1/`), a trailing dot, a host
 * spelled other than its canonical form (decimal `2130706433`, octal `0177.0.0.1`, hex, short `127.1`,
 * `[::ffff:127.0.0.1]` — the WHATWG parser rewrites these, so a difference means an odd spelling), and a
 * URL carrying a secret. Throws {@link EgressRefused}.
 *
 * @example
 * parseWebUrl('https://example.com/a').key // 'example.com:443'
 * parseWebUrl('http://0177.0.0.1/')        // throws: odd spelling
 */
export function parseWebUrl(raw: string, sources: SecretSources = {}): WebTarget {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new EgressRefused(raw, `"${raw}" is not a valid absolute URL`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    throw new EgressRefused(raw, `only http and https URLs are fetched, not ${url.protocol}`);
  if (url.username || url.password || /^[a-z][a-z0-9+.-]*:\/\/[^/?#]*@/i.test(raw)) {
    throw new EgressRefused(
      raw,
      'URLs with a user name or password before "@" are refused (they hide the real host); put credentials ' +
        'nowhere in a URL',
    );
  }
  const host = stripBrackets(url.hostname.toLowerCase());
  if (host.endsWith('.'))
    throw new EgressRefused(raw, 'host names ending in "." are refused; write the name without the trailing dot');
  const written = writtenHost(raw);
  // Non-ASCII names are internationalised domains: the parser's punycode differs by design and is no IP.
  if (written !== undefined && /^[\x21-\x7e]*$/.test(written) && stripBrackets(written) !== host) {
    throw new EgressRefused(
      raw,
      `the host "${written}" is an unusual spelling of "${host}"; write addresses in their plain form`,
    );
  }
  const secret = carriedSecret([url.href, safeDecode(url.href)], sources);
  if (secret) throw new EgressRefused(raw, `the URL contains ${secret}; a URL must not carry credentials`);
  const port = url.port ? Number(url.port) : url.protocol === 'https:' ? 443 : 80;
  return { url, host, port, key: `${host}:${port}` };
}

/** The host as written in `raw`, lower-cased, without userinfo and port; undefined when it cannot be read. */
function writtenHost(raw: string): string | undefined {
  const authority = /^[a-z][a-z0-9+.-]*:\/\/([^/?#\\]*)/i.exec(raw.trim())?.[1];
  if (authority === undefined) return undefined;
  const hostPort = authority.slice(authority.lastIndexOf('@') + 1).toLowerCase();
  if (hostPort.startsWith('[')) return hostPort.slice(0, hostPort.indexOf(']') + 1);
  return hostPort.replace(/:\d*$/, '');
}

/** A description of the secret one of `forms` carries (never the secret itself), or undefined. */
export function carriedSecret(forms: readonly string[], { secrets = [], env = {} }: SecretSources): string | undefined {
  const carries = (value: string) => value.length >= MIN_SECRET_LENGTH && forms.some((form) => form.includes(value));
  if (secrets.some(carries)) return 'a configured secret';
  for (const [name, value] of Object.entries(env)) {
    if (value !== undefined && isSecretEnv(name, value) && carries(value))
      return `the value of the environment variable ${name}`;
  }
  return undefined;
}

function safeDecode(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}
