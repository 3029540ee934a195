import { z } from 'zod';
import { CHAT_PLATFORMS, CONSOLE, PLATFORM_IDS, type Platform } from '../surface/index.ts';
import { approvalPoliciesSchema, approvalRequireSchema } from './approval-policies-schema.ts';
import { mcpServersSchema } from './mcp-schema.ts';
import { memorySchema } from './memory-schema.ts';
import { mediaSchema, transcriptionSchema } from './media-schema.ts';
import { metricsSchema } from './metrics-schema.ts';
import { tracingSchema } from './tracing-schema.ts';
import { streamingSchema } from './streaming-schema.ts';
import { uiSchema } from './ui-schema.ts';
import { duration } from './duration.ts';
import { serverUrl } from './server-url.ts';
import { shellSchema } from './shell-schema.ts';

/**
 * The zod schema of kazma.yaml. Every section is optional with defaults: an empty file is valid (every platform off,
 * embedded PGlite and Redis). Keys in docs/architecture.md are the public contract: add keys freely, rename none.
 */
const section = <T extends z.ZodRawShape>(shape: T) => z.strictObject(shape).prefault({} as never);

// Platform ids are plain lowercase words, so they go into the pattern unescaped.
const chatRef = z.string().regex(new RegExp(`^(${PLATFORM_IDS.join('|')}):[^:\\s]+(:[^:\\s]+)?$`), {
  message:
    `expected <platform>:<chat>[:<thread>] with platform ${PLATFORM_IDS.slice(0, -1).join(', ')} or ` +
    `${PLATFORM_IDS.at(-1)}`,
});

/** An operator's id on each platform. Numeric ids are read as text: YAML makes unquoted digits a number. */
const operatorIds = Object.fromEntries(
  PLATFORM_IDS.map((platform) => {
    const numeric = platform !== CONSOLE && CHAT_PLATFORMS[platform].numericIds;
    return [platform, (numeric ? z.coerce.string() : z.string()).optional()];
  }),
) as { [P in Platform]: z.ZodOptional<z.ZodString> };

const modelEntry = {
  provider: z.enum(['openai', 'anthropic']).default('openai'),
  name: z.string().default(''),
  base_url: z.string().default(''),
  api_key: z.string().default(''),
};

export const operatorSchema = z.strictObject({
  name: z.string().min(1),
  ...operatorIds,
  /** This operator's own bearer token for the HTTP API: the API decides as the token's owner. Empty: none. */
  api_token: z.string().default(''),
});

export const configSchema = z.strictObject({
  data_dir: z.string().min(1).default('./kazma-data'),
  http: section({
    port: z.coerce.number({ error: 'expected a port number (0-65535)' }).int().min(0).max(65535).default(8787),
    host: z.string().default('127.0.0.1'),
    api_token: z.string().default(''),
    secure_cookies: z.boolean().default(false), // the web page's cookie is Secure even over plain http
  }),
  ui: uiSchema,
  metrics: metricsSchema,
  tracing: tracingSchema,
  database: section({
    url: serverUrl(['postgres:', 'postgresql:'], 'a PostgreSQL URL (postgres://user:pass@host/db)'),
  }),
  redis: section({ url: serverUrl(['redis:', 'rediss:', 'unix:'], 'a Redis URL (redis://host:6379)') }),
  model: section({
    ...modelEntry,
    timeout: duration('60s'),
    max_retries: z.number().int().min(0).max(10).default(3),
    /** The model takes images; off, a photo is not sent to it and the person is told. */
    vision: z.boolean().default(true),
    transcription: transcriptionSchema,
    fallbacks: z.array(z.strictObject(modelEntry)).default([]),
  }),
  time: section({ zone: z.string().default('UTC') }),
  access: section({
    operators: z.array(operatorSchema).default([]),
    users: z.array(chatRef).default([]),
    chats: z.array(chatRef).default([]),
    /** A stranger who writes in private gets a pairing code an operator can accept with `/pair`. */
    pairing: z.boolean().default(true),
    /** A person's first direct message on a platform with no /start (Discord, Slack) is welcomed first. */
    welcome: z.boolean().default(true),
  }),
  approvals: section({
    approvers: z.array(z.string()).default([]),
    requester_may_approve: z.boolean().default(true),
    timeout: duration('30m'),
    grant_ttl: duration('30m'),
    channels: z.array(chatRef).default([]),
    /** A decided gate whose process stopped heart-beating this long ago is presumed dead and healed. */
    lease_ttl: duration('15s'),
    policies: approvalPoliciesSchema,
    require: approvalRequireSchema,
  }),
  telegram: section({
    enabled: z.boolean().default(false),
    token: z.string().default(''),
    mode: z.enum(['polling', 'webhook']).default('polling'),
    api_root: z.string().url().default('https://api.telegram.org'),
    webhook_secret: z
      .string()
      .regex(/^[A-Za-z0-9_-]{0,256}$/, {
        message: "expected 1-256 characters of A-Z, a-z, 0-9, _ and - (Telegram's rule for secret_token)",
      })
      .default(''),
    /** Public HTTPS URL Telegram posts to (…/telegram/webhook); empty: Kazma does not call setWebhook itself. */
    webhook_url: z.union([z.literal(''), z.string().url()]).default(''),
    /** In groups: answer only when mentioned or replied to (`mention`), or every message (`all`). */
    groups: z.enum(['mention', 'all']).default('mention'),
  }),
  slack: section({
    enabled: z.boolean().default(false),
    token: z.string().default(''),
    signing_secret: z.string().default(''),
    mode: z.enum(['http', 'socket']).default('http'),
    app_token: z.string().default(''),
    api_url: z.string().url().default('https://slack.com/api/'),
  }),
  discord: section({
    enabled: z.boolean().default(false),
    token: z.string().default(''),
    application_id: z.coerce.string().default(''),
    api: z.string().url().default('https://discord.com/api'),
    /** In servers: answer only messages that mention the bot or reply to it (`mention`), or every message (`all`). */
    guild_messages: z.enum(['mention', 'all']).default('mention'),
  }),
  tools: section({
    disabled: z.array(z.string()).default([]),
    workspace: z.string().default(''),
    /** Environment variables children may see beyond PATH, HOME, LANG, LC_*, TZ, TERM, TMPDIR; `NAME_*`: a prefix. */
    env_allow: z
      .array(
        z
          .string()
          .regex(/^[A-Za-z_][A-Za-z0-9_]*\*?$/, { message: 'expected a variable name, optionally ending in *' }),
      )
      .default([]),
    shell: shellSchema,
  }),
  mcp: section({
    /** MCP servers to connect (see src/core/config/mcp-schema.ts); run-time settings add, change and remove them. */
    servers: mcpServersSchema,
    /** Tools (`mcp__<server>__<tool>`) that run without approval even from an untrusted server. */
    safe_tools: z.array(z.string()).default([]),
  }),
  skills: section({
    /** Folders holding skills (tool packages); `<data_dir>/skills` is always searched too. Relative to kazma.yaml. */
    paths: z.array(z.string().min(1)).default(['./skills']),
    /**
     * Every sub-folder of a path that holds a skill.yaml is a skill; off: only paths that are skill folders themselves.
     */
    auto_discover: z.boolean().default(true),
    /** More folders of Agent Skills (SKILL.md), besides the bundled and well-known ones. Relative to kazma.yaml. */
    agent_paths: z.array(z.string().min(1)).default([]),
    /** Skills (by name) that may load without a signature; every other unsigned skill is refused. */
    allow_unsigned: z.array(z.string().min(1)).default([]),
  }),
  web: section({
    /**
     * `host:port` entries web tools may reach although internal (`[::1]:8080` for IPv6); everything else internal is
     * refused.
     */
    allow_private: z
      .array(
        z.string().regex(/^(\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9.-]+):\d{1,5}$/, {
          message: 'expected host:port, e.g. "searx.lan:8080" or "[::1]:8080"',
        }),
      )
      .default([]),
    /** Bytes of a response read at most. */
    max_bytes: z.number().int().min(1024).default(2_000_000),
    /** Time for one web request, redirects included. */
    timeout: duration('20s'),
    /** Make web_fetch and web_search wait for approval like a write tool. */
    require_approval: z.boolean().default(false),
    search: section({
      /** Empty: web_search is not offered. */
      provider: z.enum(['', 'searxng', 'brave', 'tavily']).default(''),
      /** SearXNG's base URL (required for searxng); for Brave and Tavily, empty means their public API. */
      url: z.string().default(''),
      /** Brave or Tavily key: write it as ${ENV} or a vault:// pointer. */
      api_key: z.string().default(''),
      max_results: z.number().int().min(1).max(20).default(5),
    }),
  }),
  outbound: section({
    /** Aliases send_message accepts: `{ ops: "slack:C0123" }`. */
    targets: z
      .record(z.string().regex(/^[a-z0-9_-]{1,32}$/, { message: 'expected a short lower-case alias' }), chatRef)
      .default({}),
    /** When set, send_message posts only to these (aliases or chat refs); another target gets a clarify card. */
    allow_targets: z.array(z.string()).default([]),
  }),
  jobs: section({
    concurrency: section({
      /** Background tasks one process runs at once; 0 leaves them to `kazma worker` processes. */
      swarm: z.number().int().min(0).default(4),
      outbox: z.number().int().min(1).default(8),
    }),
    /**
     * A job whose worker stopped renewing its lock this long ago (a killed process) is handed to another
     * worker. Locks are renewed at half this, so a busier event loop than that would hand a live job over.
     */
    lease_ttl: duration('15s', { min: '2s' }),
  }),
  turns: section({
    /** A turn that has crashed the process this many times is ended with a ⚠️ instead of started again. */
    max_attempts: z.number().int().min(1).max(100).default(3),
    /** A running turn whose process stopped heart-beating this long ago is taken over by another process. */
    lease_ttl: duration('15s'),
  }),
  agent: section({
    context: section({
      /**
       * The most one model request's messages may cost, in approximate tokens (~4 characters each; the
       * system prompt counts, tool definitions do not). Older whole turns leave the checkpoint for the
       * archive (thread_transcript), so a turn costs the same on a long thread as on a short one.
       */
      max_tokens: z.number().int().min(1_000).default(32_000),
    }),
  }),
  streaming: streamingSchema,
  memory: memorySchema,
  media: mediaSchema,
  /** Recorded inbound events (the dedupe guard and the crash-safe queue) are kept this long once finished. */
  inbox: section({ retention: duration('7d') }),
  /** Replies, messages and card edits are kept this long once delivered (or given up on); cards stay. */
  outbox: section({ retention: duration('7d') }),
  runs: section({
    /** How often the run supervisor (and the other sweeps) look at every piece of long work. */
    sweep_interval: duration('30s'),
    /** Chats that get every incident card, besides the chat the work came from. */
    alert_channels: z.array(chatRef).default([]),
    /** No progress (or no move out of a waiting state) for this long opens an incident, per kind of work. */
    stall_after: section({
      task: duration('10m'),
      turn: duration('10m'),
      scheduled: duration('5m'),
      gate: duration('15m'),
      outbox: duration('10m'),
      mcp: duration('10m'),
    }),
  }),
  shutdown: section({ timeout: duration('10s') }),
  log: section({ level: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info') }),
});

/** kazma.yaml after validation and defaults; durations are milliseconds. */
export type KazmaConfig = z.output<typeof configSchema>;
export type Operator = z.output<typeof operatorSchema>;
