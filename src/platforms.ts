import type { HttpServer } from './adapters/http/index.ts';
import type { LoadedConfig } from './core/config/index.ts';
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

/** One enabled-by-config platform: returns undefined when disabled in kazma.yaml. */
export type PlatformFactory = (context: PlatformContext) => Promise<RunningPlatform | undefined>;

/**
 * The platforms Kazma knows, in start order. Each adapter folder exports its factory; this list is the
 * only place that names them (adapters never import each other).
 */
export const platformFactories: PlatformFactory[] = [
  // Loaded only when enabled: a start with one platform does not pay for the other two libraries.
  async (context) => (context.loaded.config.telegram.enabled ? (await import('./adapters/telegram/index.ts')).telegramPlatform({ ...context, tuning: context.tuning?.telegram ?? {} }) : undefined),
  async (context) => (context.loaded.config.discord.enabled ? (await import('./adapters/discord/index.ts')).discordPlatform({ ...context, tuning: context.tuning?.discord ?? {} }) : undefined),
  async (context) => (context.loaded.config.slack.enabled ? (await import('./adapters/slack/index.ts')).slackPlatform({ ...context, tuning: context.tuning?.slack ?? {} }) : undefined),
];

/** Creates every enabled platform (mounting webhooks), in order. */
export async function createPlatforms(context: PlatformContext): Promise<RunningPlatform[]> {
  const running: RunningPlatform[] = [];
  for (const factory of platformFactories) {
    const platform = await factory(context);
    if (platform) running.push(platform);
  }
  return running;
}
