import { childEnv } from '../secrets/index.ts';

/**
 * Beyond childEnv's basics (PATH, HOME, LANG, LC_*, TZ, TERM, TMPDIR): the other temp-dir names and the
 * proxy variables, which servers that fetch need to reach anything from behind a proxy.
 */
const MCP_ALLOW = [
  'TEMP',
  'TMP',
  'LANGUAGE',
  'HTTP_PROXY',
  'HTTPS_PROXY',
  'NO_PROXY',
  'ALL_PROXY',
  'http_proxy',
  'https_proxy',
  'no_proxy',
  'all_proxy',
];

// The SDK's StdioClientTransport spreads getDefaultEnvironment() (HOME, LOGNAME, PATH, SHELL, TERM, USER
// of this process) under the env it is given. Naming them here as undefined takes them out again: Node
// leaves variables whose value is undefined out of the child's environment.
const SDK_DEFAULTS = ['HOME', 'LOGNAME', 'PATH', 'SHELL', 'TERM', 'USER'];

/**
 * The environment of a stdio MCP server: the allowlisted basics from `parent` plus the server's own
 * `env` (already resolved out of the vault), and nothing else of Kazma's — no API keys, no KAZMA_*.
 *
 * @example
 * stdioEnv(loaded.env, { GITHUB_TOKEN: token }) // { PATH, HOME, LANG, ..., GITHUB_TOKEN }
 */
export function stdioEnv(
  parent: Readonly<Record<string, string | undefined>>,
  own: Readonly<Record<string, string>>,
): Record<string, string> {
  const env: Record<string, string | undefined> = Object.fromEntries(SDK_DEFAULTS.map((name) => [name, undefined]));
  Object.assign(env, childEnv(parent, { allow: MCP_ALLOW }), own);
  return env as Record<string, string>;
}
