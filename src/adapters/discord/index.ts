// The Discord adapter's public face: the factory the composition root registers (src/platforms.ts).
import type { KazmaConfig } from '../../core/config/index.ts';
import type { Logger } from '../../core/log/index.ts';
import { DiscordPlatform, type DiscordPlatformOptions } from './platform.ts';

export { DiscordPlatform, type DiscordPlatformOptions } from './platform.ts';

/** The adapter options that may be tuned from outside. */
export type DiscordTuning = Partial<Pick<DiscordPlatformOptions, 'rest' | 'typingIntervalMs' | 'recordRetryDelaysMs'>>;

/** What the factory needs of the composition root's PlatformContext. */
export interface DiscordPlatformContext {
  loaded: { config: Pick<KazmaConfig, 'discord'> };
  core: DiscordPlatformOptions['core'];
  logger: Logger;
  /** Timings and retries a test or an operator tunes; each has a default. */
  tuning?: DiscordTuning;
}

/**
 * Builds the Discord adapter when `discord.enabled` is true (undefined otherwise) and attaches its
 * surface to the core; `start()` then connects to the gateway.
 * @example const discord = await discordPlatform({ loaded, core, http, logger }); await discord?.start();
 */
export async function discordPlatform(context: DiscordPlatformContext): Promise<DiscordPlatform | undefined> {
  const config = context.loaded.config.discord;
  if (!config.enabled) return undefined;
  return new DiscordPlatform({
    ...context.tuning,
    config,
    core: context.core,
    logger: context.logger.child({ platform: 'discord' }),
  });
}
export { discordChecks } from './doctor.ts';
