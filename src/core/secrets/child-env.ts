/**
 * What every child gets without asking: enough for ordinary programs to find each other, print in the
 * right language and time zone, and write temporary files. Anything else must be named in
 * `tools.env_allow`. An allowlist, because a denylist cannot know the next credential's name
 * (`GITHUB_PAT`, `PGPASS`), nor variables that change what a program runs (`LD_PRELOAD`,
 * `GIT_SSH_COMMAND`, `GIT_CONFIG_PARAMETERS`) or lends it an identity (`SSH_AUTH_SOCK`).
 */
const BASE_ALLOW: readonly string[] = Object.freeze(['PATH', 'HOME', 'LANG', 'LC_*', 'TZ', 'TERM', 'TMPDIR']);

/** Options for {@link childEnv}. */
export interface ChildEnvOptions {
  /**
   * Extra names to pass (`tools.env_allow`); a trailing `*` matches a prefix (`MY_TOOL_*`). Default none.
   * Names are matched exactly: `Path` does not match `PATH`.
   */
  allow?: readonly string[];
}

/**
 * The environment for a child process Kazma starts (shell tool, MCP servers): only PATH, HOME, LANG,
 * LC_*, TZ, TERM and TMPDIR from the parent, plus the names in `allow`.
 *
 * @example
 * spawn('ls', [], { env: childEnv(loaded.env, { allow: config.tools.env_allow }) });
 */
export function childEnv(
  parentEnv: Readonly<Record<string, string | undefined>>,
  options: ChildEnvOptions = {},
): Record<string, string> {
  const patterns = [...BASE_ALLOW, ...(options.allow ?? [])];
  const env: Record<string, string> = {};
  for (const [name, value] of Object.entries(parentEnv)) {
    if (value !== undefined && patterns.some((pattern) => matches(pattern, name))) env[name] = value;
  }
  return env;
}

function matches(pattern: string, name: string): boolean {
  return pattern.endsWith('*') ? name.startsWith(pattern.slice(0, -1)) : pattern === name;
}

/**
 * Names that carry credentials. Matched on the upper-cased name; `KAZMA_*` is Kazma's own
 * configuration. This no longer decides what a child sees (the allowlist does); it stays for code
 * that must recognise a credential by its name or value.
 */
const SECRET_NAME_PARTS =
  /TOKEN|SECRET|PASSWORD|PASSWD|PASSPHRASE|APIKEY|API_KEY|CREDENTIAL|PRIVATE_KEY|ACCESS_KEY|COOKIE/;
const SECRET_NAME_SUFFIX = /(_KEY|_PASS|_PWD|_AUTH|_DSN)$/;
const SECRET_NAMES = new Set(['DATABASE_URL', 'REDIS_URL', 'PGPASSWORD', 'PGPASSFILE', 'MYSQL_PWD', 'NETRC']);
// A URL with a password in it is a credential whatever the variable is called.
const URL_WITH_PASSWORD = /[a-z][a-z0-9+.-]*:\/\/[^\s:@/]*:[^\s@/]+@/i;

/** True when an environment variable looks like a credential, by its name or its value. */
export function isSecretEnv(name: string, value: string | undefined): boolean {
  const upper = name.toUpperCase();
  if (upper.startsWith('KAZMA_')) return true;
  if (SECRET_NAMES.has(upper) || SECRET_NAME_PARTS.test(upper) || SECRET_NAME_SUFFIX.test(upper)) return true;
  return value !== undefined && URL_WITH_PASSWORD.test(value);
}
