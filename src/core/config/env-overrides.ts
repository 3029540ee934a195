import type { Environment } from './env-substitution.ts';

/**
 * The well-known environment variables. Each one that is set (and not empty) gives its key that value,
 * whatever kazma.yaml says: environment > file > default, for every kazma.yaml, not only one that writes
 * `${VAR}` (docs/configuration.md "Environment variables" lists them from here). `provider`: only when the
 * file's `model.provider` (default `openai`) is that one, so an Anthropic key never goes to OpenAI.
 */
export const ENV_OVERRIDES: ReadonlyArray<{ variable: string; key: string; provider?: 'openai' | 'anthropic' }> = [
  { variable: 'KAZMA_MODEL', key: 'model.name' },
  { variable: 'OPENAI_API_KEY', key: 'model.api_key', provider: 'openai' },
  { variable: 'OPENAI_BASE_URL', key: 'model.base_url', provider: 'openai' },
  { variable: 'ANTHROPIC_API_KEY', key: 'model.api_key', provider: 'anthropic' },
  { variable: 'TELEGRAM_TOKEN', key: 'telegram.token' },
  { variable: 'TELEGRAM_WEBHOOK_SECRET', key: 'telegram.webhook_secret' },
  { variable: 'SLACK_BOT_TOKEN', key: 'slack.token' },
  { variable: 'SLACK_SIGNING_SECRET', key: 'slack.signing_secret' },
  { variable: 'SLACK_APP_TOKEN', key: 'slack.app_token' },
  { variable: 'DISCORD_TOKEN', key: 'discord.token' },
  { variable: 'DATABASE_URL', key: 'database.url' },
  { variable: 'REDIS_URL', key: 'redis.url' },
  { variable: 'KAZMA_API_TOKEN', key: 'http.api_token' },
];

type Tree = Record<string, unknown>;
const isTree = (value: unknown): value is Tree => typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * `tree` (kazma.yaml after `${VAR}` substitution) with every set variable of {@link ENV_OVERRIDES} written
 * into its key, and `sources` saying which variable gave each (so an error about the value names it).
 */
export function applyEnvOverrides(tree: unknown, env: Environment, sources: Record<string, string>): unknown {
  if (!isTree(tree)) return tree;
  const out: Tree = { ...tree };
  const model = isTree(out.model) ? out.model : {};
  const provider = typeof model.provider === 'string' ? model.provider : 'openai';
  for (const { variable, key, provider: only } of ENV_OVERRIDES) {
    const value = env[variable];
    if (value === undefined || value === '' || (only && only !== provider)) continue;
    const [section, name] = key.split('.') as [string, string];
    // A section written as something else than a mapping is left for validation to name.
    if (out[section] !== undefined && !isTree(out[section])) continue;
    out[section] = { ...(out[section] as Tree | undefined), [name]: value };
    sources[key] = variable;
  }
  return out;
}
