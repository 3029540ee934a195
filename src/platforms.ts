import type { HttpServer } from './adapters/http/index.ts';
import type { KazmaConfig, LoadedConfig } from './core/config/index.ts';
import type { DiscordTuning } from './adapters/discord/index.ts';
import type { SlackTuning } from './adapters/slack/index.ts';
import type { TelegramTuning } from './adapters/telegram/index.ts';
import type { KazmaCore } from './core/kazma-core.ts';
import type { Logger } from './core/log/index.ts';

/** Adapter timings and retries an operator or a test tunes, per platform (each has its defaults). */
export interface PlatformTuning {
  telegram?: TelegramTuning;
  slack?: SlackTuning;
  discord?: DiscordTuning;
}

/** What every platform adapter gets from the composition root. */
export interface PlatformContext {
  loaded: LoadedConfig;
  core: KazmaCore;
  /** Mount webhook routes on `http.app` during `create` (before the server listens). */
  http: HttpServer;
  logger: Logger;
  tuning?: PlatformTuning;
}

/** A started platform adapter: attached to the core, receiving events until stopped. */
export interface RunningPlatform {
  readonly name: string;
  /** Connects to the platform (polling, gateway, socket); called after the HTTP server listens. */
  start(): Promise<void>;
  /** Stops intake and closes connections; the core finishes running turns afterwards. */
  stop(): Promise<void>;
}

/** Creates one platform from its loaded adapter (mounting its webhooks). */
export type PlatformFactory = (context: PlatformContext) => Promise<RunningPlatform | undefined>;

/** A platform Kazma knows: whether kazma.yaml enables it, and its adapter, imported only then. */
interface PlatformEntry {
  enabled(config: KazmaConfig): boolean;
  load(): Promise<PlatformFactory>;
}

/**
 * The platforms Kazma knows, in start order. Each adapter folder exports its factory; this list is the
 * only place that names them (adapters never import each other).
 */
const platformEntries: readonly PlatformEntry[] = [
  {
    enabled: (config) => config.telegram.enabled,
    load: async () => {
      const { telegramPlatform } = await import('./adapters/telegram/index.ts');
      return (context) => telegramPlatform({ ...context, tuning: context.tuning?.telegram ?? {} });
    },
  },
  {
    enabled: (config) => config.discord.enabled,
    load: async () => {
      const { discordPlatform } = await import('./adapters/discord/index.ts');
      return (context) => discordPlatform({ ...context, tuning: context.tuning?.discord ?? {} });
    },
  },
  {
    enabled: (config) => config.slack.enabled,
    load: async () => {
      const { slackPlatform } = await import('./adapters/slack/index.ts');
      return (context) => slackPlatform({ ...context, tuning: context.tuning?.slack ?? {} });
    },
  },
];

/**
 * Imports the enabled platforms' adapters. Only those (a start with one platform does not pay for the
 * other two SDKs), and all at once: their module graphs load side by side instead of one after another
 * (discord.js alone takes ~0.5 s). src/main.ts calls it before the rest of Kazma loads, so this overlaps
 * the database opening too.
 */
export function loadPlatforms(config: KazmaConfig): Promise<PlatformFactory[]> {
  return Promise.all(platformEntries.filter((entry) => entry.enabled(config)).map((entry) => entry.load()));
}

/** Creates every enabled platform (mounting webhooks), in order, from {@link loadPlatforms}' adapters. */
export async function createPlatforms(
  context: PlatformContext,
  loading = loadPlatforms(context.loaded.config),
): Promise<RunningPlatform[]> {
  const factories = await loading;
  const running: RunningPlatform[] = [];
  for (const factory of factories) {
    const platform = await factory(context);
    if (platform) running.push(platform);
  }
  return running;
}
