// The platforms Kazma speaks on, named once. The config schema (ChatRef pattern, operator ids, the
// token rule), secret collection, card labels, access control, `kazma config check` and `kazma doctor`
// derive their lists from here, so a new platform is added in this file and the compiler points at
// every per-platform table still missing it. tests/chat/platforms.test.ts checks the rest (adapter
// folders, the composition root's factories).

/** What Kazma knows of one chat platform, apart from its adapter. */
export interface ChatPlatformFacts {
  /** How people read its name: "Approved once by maya on Slack". */
  readonly label: string;
  /** The environment variable kazma.yaml reads the bot token from, named in the fix when it is missing. */
  readonly tokenEnv: string;
  /** Where that token comes from, completing "set TELEGRAM_TOKEN to …". */
  readonly tokenHint: string;
  /** Keys of its kazma.yaml section that hold secrets: never printed, masked in logs and tool output. */
  readonly secretKeys: readonly string[];
  /** Its user and chat ids are digits, which YAML reads as numbers unless quoted; they are read as text. */
  readonly numericIds: boolean;
  /**
   * Its client sends `/start` when a person first opens the bot, and /start answers with the welcome;
   * elsewhere a person's first direct message is welcomed (core/commands/first-welcome.ts).
   */
  readonly opensWithStart: boolean;
}

/**
 * The chat platforms: each has an adapter folder under src/adapters and a section in kazma.yaml with
 * `enabled` and `token`. Listed in the order `kazma config check` prints them.
 */
export const CHAT_PLATFORMS = {
  telegram: {
    label: 'Telegram',
    tokenEnv: 'TELEGRAM_TOKEN',
    tokenHint: 'the token @BotFather gave you',
    secretKeys: ['token', 'webhook_secret'],
    numericIds: true,
    opensWithStart: true,
  },
  slack: {
    label: 'Slack',
    tokenEnv: 'SLACK_BOT_TOKEN',
    tokenHint: 'the Bot User OAuth Token (xoxb-…)',
    secretKeys: ['token', 'signing_secret', 'app_token'],
    numericIds: false,
    opensWithStart: false,
  },
  discord: {
    label: 'Discord',
    tokenEnv: 'DISCORD_TOKEN',
    tokenHint: 'the bot token from the Developer Portal (Bot → Reset Token)',
    secretKeys: ['token'],
    numericIds: true,
    opensWithStart: false,
  },
} as const satisfies Record<string, ChatPlatformFacts>;

/** A chat platform's id, e.g. `telegram`: its kazma.yaml section, adapter folder and ChatRef prefix. */
export type ChatPlatform = keyof typeof CHAT_PLATFORMS;

/** The chat platforms' ids, in the order of {@link CHAT_PLATFORMS}. */
export const CHAT_PLATFORM_IDS = Object.keys(CHAT_PLATFORMS) as readonly ChatPlatform[];

/** The local console: a platform for ChatRefs and operator entries, with no section or token of its own. */
export const CONSOLE = 'console';

/** A platform a ChatRef, an actor or an `access.operators[]` entry may name. */
export type Platform = ChatPlatform | typeof CONSOLE;

/** Every {@link Platform}: the chat platforms, then the console. */
export const PLATFORM_IDS: readonly Platform[] = [...CHAT_PLATFORM_IDS, CONSOLE];

/** True when `id` is a {@link Platform} (narrows an actor's or a ChatRef's platform string). */
export function isPlatform(id: string): id is Platform {
  return (PLATFORM_IDS as readonly string[]).includes(id);
}

/**
 * How a card or an answer names where someone acted: a platform's label, `the console`, `the API` for
 * the HTTP API or `the web page` for `/ui` (actor platforms, never a ChatRef). Unknown ids are shown as they are.
 * @example platformLabel('slack') // 'Slack'
 */
export function platformLabel(platform: string): string {
  if (platform === CONSOLE) return 'the console';
  if (platform === 'api') return 'the API';
  if (platform === 'web') return 'the web page';
  return Object.hasOwn(CHAT_PLATFORMS, platform) ? CHAT_PLATFORMS[platform as ChatPlatform].label : platform;
}
