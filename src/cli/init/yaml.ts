// The kazma.yaml `kazma init` writes: only what it was told, each key with a comment saying what it is;
// every other key keeps its default (docs/configuration.md lists them all).
import type { DiscordAnswers, ModelAnswers, OperatorAnswers, SlackAnswers, TelegramAnswers } from './answers.ts';
import { DEFAULT_API } from './answers.ts';

/** What goes into the file; secret values are `vault://` pointers (or empty) by now. */
export interface InitPlan {
  dataDir: string;
  port: number;
  model: ModelAnswers;
  telegram?: TelegramAnswers;
  slack?: SlackAnswers;
  discord?: DiscordAnswers;
  operator: OperatorAnswers;
  /** How the vault's key is found, for the header. */
  vaultKey: string;
}

const q = (value: string) => JSON.stringify(value);

/** The file's text. */
export function renderConfig(plan: InitPlan): string {
  const { model, telegram, slack, discord, operator } = plan;
  const ids = Object.entries(operator.ids)
    .map(([platform, id]) => `, ${platform}: ${q(id)}`)
    .join('');
  const lines = [
    '# Written by `kazma init`. Every key and its default: docs/configuration.md. Check it: kazma config check.',
    `# Secrets are vault:// pointers into the vault (in the database), sealed with ${plan.vaultKey}.`,
    '# The well-known environment variables (OPENAI_API_KEY, TELEGRAM_TOKEN, DATABASE_URL, …) win over this file.',
    '',
    `data_dir: ${q(plan.dataDir)}   # embedded database, vault key, private redis-server socket`,
    `http: { port: ${plan.port}, host: 127.0.0.1 }   # health, metrics, webhooks, the web page`,
    'database: { url: "" }          # empty: embedded PGlite under data_dir; a postgres:// URL for PostgreSQL',
    'redis: { url: "" }             # empty: 127.0.0.1:6379, else a private redis-server under data_dir',
    '',
    'model:',
    `  provider: ${model.provider}             # openai (any OpenAI-compatible base_url) | anthropic`,
    `  name: ${q(model.name)}${model.name ? '' : '   # empty: every turn says how to configure a model'}`,
    `  base_url: ${q(model.baseUrl)}${model.baseUrl ? '' : "   # empty: the provider's own endpoint"}`,
    `  api_key: ${q(model.apiKey)}`,
    '',
    'access:',
    '  operators:                     # people who may chat, approve tool calls and run /config',
    `    - { name: ${q(operator.name)}${ids} }`,
    '  users: []                      # others who may chat: ["telegram:555", "slack:U999"]',
    '  pairing: true                  # a stranger writing in private gets a code an operator accepts with /pair',
    '',
  ];
  if (telegram)
    lines.push(
      'telegram:',
      '  enabled: true',
      `  token: ${q(telegram.token)}`,
      '  mode: polling                  # Kazma asks Telegram for updates; no public URL needed',
      ...(telegram.apiRoot !== DEFAULT_API.telegram ? [`  api_root: ${q(telegram.apiRoot)}`] : []),
      '',
    );
  if (slack)
    lines.push(
      'slack:',
      '  enabled: true',
      `  token: ${q(slack.token)}`,
      slack.appToken
        ? '  mode: socket                   # Kazma connects out; no public URL needed'
        : '  mode: http                     # Slack posts to https://YOUR_HOST/slack/events',
      ...(slack.signingSecret ? [`  signing_secret: ${q(slack.signingSecret)}`] : []),
      ...(slack.appToken ? [`  app_token: ${q(slack.appToken)}`] : []),
      ...(slack.apiUrl !== DEFAULT_API.slack ? [`  api_url: ${q(slack.apiUrl)}`] : []),
      '',
    );
  if (discord)
    lines.push(
      'discord:',
      '  enabled: true',
      `  token: ${q(discord.token)}`,
      `  application_id: ${q(discord.applicationId)}`,
      ...(discord.api !== DEFAULT_API.discord ? [`  api: ${q(discord.api)}`] : []),
      '',
    );
  lines.push('shutdown: { timeout: 10s }     # how long a stop lets running work finish');
  return `${lines.join('\n')}\n`;
}
