// What `kazma init` needs to know, from its flags (scripts) or, for what no flag gave, from questions.
import type { Prompter } from './prompter.ts';

/** The flags of `kazma init` (node:util parseArgs options). */
export const INIT_OPTIONS = {
  config: { type: 'string', short: 'c' },
  help: { type: 'boolean', short: 'h' },
  force: { type: 'boolean' },
  yes: { type: 'boolean', short: 'y' },
  'non-interactive': { type: 'boolean' },
  'skip-checks': { type: 'boolean' },
  'data-dir': { type: 'string' },
  'http-port': { type: 'string' },
  provider: { type: 'string' },
  model: { type: 'string' },
  'base-url': { type: 'string' },
  'api-key': { type: 'string' },
  'telegram-token': { type: 'string' },
  'telegram-api-root': { type: 'string' },
  'slack-bot-token': { type: 'string' },
  'slack-signing-secret': { type: 'string' },
  'slack-app-token': { type: 'string' },
  'slack-api-url': { type: 'string' },
  'discord-token': { type: 'string' },
  'discord-application-id': { type: 'string' },
  'discord-api': { type: 'string' },
  operator: { type: 'string' },
  'operator-id': { type: 'string', multiple: true },
} as const;

export type InitFlags = {
  [K in keyof typeof INIT_OPTIONS]?: (typeof INIT_OPTIONS)[K] extends { multiple: true }
    ? string[]
    : (typeof INIT_OPTIONS)[K] extends { type: 'boolean' }
      ? boolean
      : string;
};

export interface ModelAnswers {
  provider: 'openai' | 'anthropic';
  name: string;
  baseUrl: string;
  apiKey: string;
}

export interface TelegramAnswers {
  token: string;
  apiRoot: string;
}

export interface SlackAnswers {
  token: string;
  signingSecret: string;
  /** Set: Socket Mode; empty: HTTP mode (Slack posts to Kazma's public URL). */
  appToken: string;
  apiUrl: string;
}

export interface DiscordAnswers {
  token: string;
  applicationId: string;
  api: string;
}

/** One operator: their name and the platform ids they are known by (`telegram` → `123`). */
export interface OperatorAnswers {
  name: string;
  ids: Record<string, string>;
}

export const DEFAULT_API = {
  telegram: 'https://api.telegram.org',
  slack: 'https://slack.com/api/',
  discord: 'https://discord.com/api',
} as const;

export const PLATFORM_NAMES = ['telegram', 'slack', 'discord'] as const;
export type InitPlatform = (typeof PLATFORM_NAMES)[number];

/** The model, from the flags and, when asking, the questions for what they left out. */
export async function modelAnswers(flags: InitFlags, ask: Prompter | undefined): Promise<ModelAnswers> {
  let provider =
    flags.provider ??
    (ask && !flags.model
      ? await ask.ask('Model provider: openai (any OpenAI-compatible server) or anthropic', { fallback: 'openai' })
      : 'openai');
  provider = provider.toLowerCase();
  if (provider !== 'openai' && provider !== 'anthropic')
    throw new InitUsageError(`--provider must be openai or anthropic, not "${provider}"`);
  const anthropic = provider === 'anthropic';
  const baseUrl =
    flags['base-url'] ??
    (ask && !anthropic && !flags.model
      ? await ask.ask('Base URL (empty: OpenAI itself; Ollama: http://127.0.0.1:11434/v1)', { fallback: '' })
      : '');
  const name =
    flags.model ??
    (ask
      ? await ask.ask('Model name', { fallback: anthropic ? 'claude-sonnet-4-5' : baseUrl ? '' : 'gpt-4o-mini' })
      : '');
  const apiKey =
    flags['api-key'] ??
    (ask && !flags.model
      ? await ask.ask(
          `API key (not shown as you type${anthropic ? '' : '; empty for a local server that needs none'})`,
          {
            secret: true,
          },
        )
      : '');
  return { provider, name, baseUrl, apiKey };
}

/** The platforms to set up: those whose token a flag gave, else (asking) the ones named. */
export async function platformChoice(flags: InitFlags, ask: Prompter | undefined): Promise<InitPlatform[]> {
  const token = { telegram: flags['telegram-token'], slack: flags['slack-bot-token'], discord: flags['discord-token'] };
  const given = PLATFORM_NAMES.filter((p) => token[p] !== undefined);
  if (given.length > 0 || !ask) return given;
  const typed = await ask.ask('Platforms to set up: telegram, slack, discord (comma-separated) or none', {
    fallback: 'telegram',
  });
  if (/^none$/i.test(typed)) return [];
  const names = typed
    .toLowerCase()
    .split(/[\s,]+/)
    .filter(Boolean);
  const unknown = names.filter((n) => !(PLATFORM_NAMES as readonly string[]).includes(n));
  if (unknown.length > 0)
    throw new InitUsageError(`unknown platform ${unknown.join(', ')}: choose telegram, slack or discord`);
  return PLATFORM_NAMES.filter((p) => names.includes(p));
}

/** `--operator-id telegram:123` → `{ telegram: '123' }`. */
export function operatorIds(values: readonly string[]): Record<string, string> {
  const ids: Record<string, string> = {};
  for (const value of values) {
    const match = /^(telegram|slack|discord):([^:\s]+)$/.exec(value);
    if (!match)
      throw new InitUsageError(`--operator-id must be <platform>:<id> (e.g. telegram:123456), not "${value}"`);
    ids[match[1]!] = match[2]!;
  }
  return ids;
}

/** A flag or an answer that cannot be used: said in one line, exit 2. */
export class InitUsageError extends Error {}
