/**
 * Names that carry credentials. Matched on the upper-cased name; `KAZMA_*` is Kazma's own
 * configuration and never reaches a child.
 */
const SECRET_NAME_PARTS = /TOKEN|SECRET|PASSWORD|PASSWD|PASSPHRASE|APIKEY|API_KEY|CREDENTIAL|PRIVATE_KEY|ACCESS_KEY|COOKIE/;
const SECRET_NAME_SUFFIX = /(_KEY|_PASS|_PWD|_AUTH|_DSN)$/;
const SECRET_NAMES = new Set(['DATABASE_URL', 'REDIS_URL', 'PGPASSWORD', 'PGPASSFILE', 'MYSQL_PWD', 'NETRC']);
// A URL with a password in it is a credential whatever the variable is called.
const URL_WITH_PASSWORD = /[a-z][a-z0-9+.-]*:\/\/[^\s:@/]*:[^\s@/]+@/i;

/** True when an environment variable must not be passed to a child process. */
export function isSecretEnv(name: string, value: string | undefined): boolean {
  const upper = name.toUpperCase();
  if (upper.startsWith('KAZMA_')) return true;
  if (SECRET_NAMES.has(upper) || SECRET_NAME_PARTS.test(upper) || SECRET_NAME_SUFFIX.test(upper)) return true;
  return value !== undefined && URL_WITH_PASSWORD.test(value);
}

/**
 * The environment for a child process Kazma starts (shell tool, MCP servers): the parent's
 * variables minus Kazma's own and anything that looks like a credential by name or by value.
 * PATH, HOME, LANG and the like pass through so ordinary programs behave normally.
 *
 * @example
 * spawn('ls', [], { env: scrubEnv(config.env) });
 */
export function scrubEnv(parentEnv: Readonly<Record<string, string | undefined>>): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [name, value] of Object.entries(parentEnv)) {
    if (value === undefined || isSecretEnv(name, value)) continue;
    env[name] = value;
  }
  return env;
}
