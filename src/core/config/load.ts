import { readFileSync } from 'node:fs';
import { dirname, isAbsolute, join, relative, resolve } from 'node:path';
import { parse as parseYaml, YAMLParseError } from 'yaml';
import { CHAT_PLATFORM_IDS, CHAT_PLATFORMS } from '../surface/index.ts';
import { ConfigError } from '../errors.ts';
import { applyEnvOverrides } from './env-overrides.ts';
import { substituteEnv, type Environment } from './env-substitution.ts';
import { trustIssues } from './mcp-schema.ts';
import { isSecretEnv } from '../secrets/index.ts';
import { describeIssues } from './issues.ts';
import { moveRenamedKeys } from './renamed-keys.ts';
import { crossFieldIssues } from './cross-field.ts';
import { configSchema, type KazmaConfig } from './schema.ts';
import { workspaceIssues } from './workspace-rules.ts';

/** `tools.workspace` when unset, relative to kazma.yaml's folder (or the working directory). */
const DEFAULT_WORKSPACE = './kazma-workspace';

/** A validated configuration plus what the rest of the program may know of its environment. */
export interface LoadedConfig {
  config: KazmaConfig;
  /** Absolute path of the file read, or undefined when running on defaults. */
  path: string | undefined;
  /** The process environment, captured once here: child processes get a scrubbed copy of it. */
  env: Environment;
  /** Values that must never be printed (tokens, keys, passwords, URLs carrying passwords). */
  secrets: string[];
  /**
   * What the file should change though Kazma runs with it (a renamed key): logged at start, printed by `config check`.
   */
  warnings?: readonly string[];
  /** Which environment variable gave a key its value (`model.api_key` → `OPENAI_API_KEY`); absent: the file itself. */
  sources?: Readonly<Record<string, string>>;
}

export interface LoadConfigOptions {
  /** kazma.yaml to read; default `$KAZMA_CONFIG`, else `./kazma.yaml` (missing default file = defaults). */
  path?: string;
  /** Default: process.env. This module is the only reader of process.env. */
  env?: Environment;
  /** Default: process.cwd(). */
  cwd?: string;
}

/** Reads, substitutes and validates kazma.yaml. Throws ConfigError naming every bad key and why. */
export function loadConfig(options: LoadConfigOptions = {}): LoadedConfig {
  const env = options.env ?? { ...process.env };
  const cwd = options.cwd ?? process.cwd();
  const explicit = options.path ?? env.KAZMA_CONFIG;
  const path = resolve(cwd, explicit ?? 'kazma.yaml');
  const text = readConfigText(path, explicit !== undefined);
  if (text === undefined) {
    // No kazma.yaml here (a global install run anywhere): the data goes where the platform keeps it.
    const dataDir = xdgDataDir(env);
    return parseConfig('', { env, baseDir: cwd, ...(dataDir && { defaultDataDir: dataDir }) });
  }
  return parseConfig(text, { env, baseDir: dirname(path), path });
}

/** `$XDG_DATA_HOME/kazma`, else `~/.local/share/kazma`; undefined with neither set (then ./kazma-data). */
export function xdgDataDir(env: Environment): string | undefined {
  if (env.XDG_DATA_HOME && isAbsolute(env.XDG_DATA_HOME)) return join(env.XDG_DATA_HOME, 'kazma');
  return env.HOME ? join(env.HOME, '.local', 'share', 'kazma') : undefined;
}

/**
 * Validates YAML text; exported for tests and `config check`. Relative paths resolve against baseDir;
 * `defaultDataDir` replaces `./kazma-data` when the text sets no data_dir.
 */
export function parseConfig(
  text: string,
  options: { env: Environment; baseDir: string; path?: string; defaultDataDir?: string },
): LoadedConfig {
  const file = options.path && shownPath(options.path);
  const invalid = (issues: string[]) => new ConfigError(issues, { ...(file && { file }) });
  let raw: unknown;
  try {
    raw = parseYaml(text) ?? {};
  } catch (error) {
    const where = error instanceof YAMLParseError && error.linePos ? ` (line ${error.linePos[0].line})` : '';
    // The parser ends its first line with " at line N, column M:" (the excerpt followed); the line is said already.
    const what = (error as Error).message
      .split('\n')[0]!
      .replace(/ at line \d+, column \d+:?$/, '')
      .replace(/:$/, '');
    throw invalid([`(yaml)${where}: ${what}`]);
  }
  if (typeof raw !== 'object' || Array.isArray(raw)) throw invalid(['(root): expected a mapping of sections']);
  if (options.defaultDataDir && (raw as Record<string, unknown>).data_dir === undefined)
    raw = { ...raw, data_dir: options.defaultDataDir };
  const renamed = moveRenamedKeys(raw);
  const substituted = substituteEnv(renamed.value, options.env);
  // The well-known variables win over the file (env-overrides.ts), whatever it writes for their keys.
  substituted.value = applyEnvOverrides(substituted.value, options.env, substituted.sources);
  const parsed = configSchema.safeParse(substituted.value);
  const issues = [...renamed.issues, ...substituted.issues];
  if (!parsed.success) issues.push(...describeIssues(parsed.error, configSchema, substituted.value));
  else issues.push(...crossFieldIssues(parsed.data), ...trustIssues(parsed.data.mcp.servers, options.env));
  if (issues.length > 0 || !parsed.success) throw invalid(unique(issues));
  const config = resolvePaths(parsed.data, options.baseDir);
  const where = { ...(options.path && { configFile: options.path }), home: options.env.HOME };
  const overlaps = workspaceIssues(config, where);
  if (overlaps.length > 0) throw invalid(overlaps);
  return {
    config,
    path: options.path,
    env: options.env,
    secrets: collectSecrets(config),
    sources: substituted.sources,
    ...(renamed.warnings.length > 0 && { warnings: renamed.warnings }),
  };
}

function readConfigText(path: string, required: boolean): string | undefined {
  try {
    return readFileSync(path, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' && !required) return undefined;
    const headline = code === 'ENOENT' ? `no such file: ${path}` : `cannot read ${path}: ${(error as Error).message}`;
    throw new ConfigError([headline], { headline });
  }
}

/** A path as the person would name it: relative to where they are, unless it is elsewhere. */
function shownPath(path: string): string {
  const shown = relative(process.cwd(), path);
  return shown && !shown.startsWith('..') && !isAbsolute(shown) ? shown : path;
}

function resolvePaths(config: KazmaConfig, baseDir: string): KazmaConfig {
  const dataDir = isAbsolute(config.data_dir) ? config.data_dir : resolve(baseDir, config.data_dir);
  // Beside kazma.yaml, not in data_dir: the workspace must not overlap what Kazma runs from (workspace-rules.ts).
  const workspace = resolve(baseDir, config.tools.workspace || DEFAULT_WORKSPACE);
  return {
    ...config,
    data_dir: dataDir,
    tools: { ...config.tools, workspace },
    skills: {
      ...config.skills,
      paths: config.skills.paths.map((p) => resolve(baseDir, p)),
      agent_paths: config.skills.agent_paths.map((p) => resolve(baseDir, p)),
    },
  };
}

function collectSecrets(config: KazmaConfig): string[] {
  const values = [
    config.http.api_token,
    ...config.access.operators.map((o) => o.api_token),
    config.model.api_key,
    ...config.model.fallbacks.map((f) => f.api_key),
    config.model.transcription.api_key,
    // Each platform's secret keys come from the platform list, so a new platform's tokens are masked too.
    ...CHAT_PLATFORM_IDS.flatMap((platform) =>
      CHAT_PLATFORMS[platform].secretKeys.map((key) => (config[platform] as Record<string, unknown>)[key]),
    ),
    ...[config.database.url, config.redis.url].map((url) => urlPassword(url)),
    // An MCP server's own variables and credentials (the vault:// pointers among them reveal nothing).
    ...config.mcp.servers.flatMap((s) =>
      s.transport === 'stdio'
        ? Object.entries(s.env)
            .filter(([k, v]) => isSecretEnv(k, v))
            .map(([, v]) => v)
        : s.auth
          ? ['bearer' in s.auth ? s.auth.bearer : s.auth.value]
          : [],
    ),
  ];
  return unique(values.filter((v): v is string => typeof v === 'string' && v.length >= 4));
}

function urlPassword(url: string): string | undefined {
  try {
    return decodeURIComponent(new URL(url).password) || undefined;
  } catch {
    return undefined;
  }
}

const unique = <T>(items: T[]): T[] => [...new Set(items)];
