import { type LoadedConfig, crossFieldIssues } from '../config/index.ts';
import { ConfigError, KazmaError } from '../errors.ts';
import { isVaultPointer } from '../secrets/index.ts';
import type { VaultPort } from './port.ts';

/** Every `vault://` pointer in a configuration, by its key path (`access.operators[0].api_token`). */
export function findVaultPointers(value: unknown, path = ''): Array<{ path: string; pointer: string }> {
  if (isVaultPointer(value)) return [{ path: path || '(root)', pointer: value }];
  if (Array.isArray(value)) return value.flatMap((item, i) => findVaultPointers(item, `${path}[${i}]`));
  if (value === null || typeof value !== 'object') return [];
  return Object.entries(value).flatMap(([key, item]) => findVaultPointers(item, path ? `${path}.${key}` : key));
}

/**
 * Key paths whose pointers their own module resolves: each MCP server resolves its own when it starts,
 * so one bad pointer stops that server (naming the field), not Kazma.
 */
const RESOLVED_ELSEWHERE = ['mcp.servers'];

/**
 * Replaces every `vault://name` pointer (but those under {@link RESOLVED_ELSEWHERE}) in `loaded.config` with its
 * secret, at start, after the database opens and before any module reads the configuration. Changes `loaded` in place
 * on purpose: the logger and the modules already hold `loaded.secrets`, and each resolved value joins it there, so
 * logs, cards and tool output mask it from now on. Returns how many were resolved.
 *
 * Throws a {@link ConfigError} naming each key path whose pointer cannot be resolved (no such name, the
 * vault disabled or locked), and the configuration's cross-field rules (e.g. operator API tokens
 * long and distinct) are checked again on the resolved values.
 *
 * @example
 * await resolveVaultPointers(loaded, vault); // access.operators[0].api_token: 'vault://maya' -> the token
 */
export async function resolveVaultPointers(loaded: LoadedConfig, vault: VaultPort): Promise<number> {
  const found = findVaultPointers(loaded.config).filter(
    ({ path }) => !RESOLVED_ELSEWHERE.some((prefix) => path.startsWith(prefix)),
  );
  if (found.length === 0) return 0;
  const file = loaded.path ?? 'kazma.yaml';
  const issues: string[] = [];
  const values = new Map<string, string>();
  for (const { path, pointer } of found) {
    try {
      values.set(path, await vault.resolve(pointer));
    } catch (error) {
      if (!(error instanceof KazmaError)) throw error;
      issues.push(`${path}: ${pointer} cannot be resolved: ${error.message}`);
    }
  }
  if (issues.length > 0)
    throw new ConfigError(issues, {
      headline: `${file}: vault:// pointers could not be resolved:\n  ${issues.join('\n  ')}`,
    });
  const config = replaceAt(loaded.config, '', values) as LoadedConfig['config'];
  const after = crossFieldIssues(config);
  if (after.length > 0)
    throw new ConfigError(after, {
      headline:
        `${file}: with its vault:// pointers resolved, the configuration is not valid:\n  ` + `${after.join('\n  ')}`,
    });
  // Into the same object, section by section: whoever holds `loaded.config` (the composition root's
  // `config`) sees the resolved values.
  Object.assign(loaded.config, config);
  for (const value of values.values()) if (!loaded.secrets.includes(value)) loaded.secrets.push(value);
  return values.size;
}

/**
 * A copy of `value` with the strings at the given key paths replaced (paths as {@link findVaultPointers} names them).
 */
function replaceAt(value: unknown, path: string, values: ReadonlyMap<string, string>): unknown {
  const replaced = values.get(path || '(root)');
  if (replaced !== undefined) return replaced;
  if (Array.isArray(value)) return value.map((item, i) => replaceAt(item, `${path}[${i}]`, values));
  if (value === null || typeof value !== 'object') return value;
  return Object.fromEntries(
    Object.entries(value).map(([key, item]) => [key, replaceAt(item, path ? `${path}.${key}` : key, values)]),
  );
}
