// The Telegram adapter's public face: the factory the composition root registers (src/platforms.ts).
import type { Hono } from 'hono';
import type { KazmaConfig } from '../../core/config/index.ts';
import type { Logger } from '../../core/log/index.ts';
import { TelegramPlatform, type TelegramPlatformOptions } from './platform.ts';

export { TelegramPlatform, type TelegramPlatformOptions } from './platform.ts';

/** The adapter options that may be tuned from outside. */
export type TelegramTuning = Partial<Pick<TelegramPlatformOptions, 'retry' | 'typingIntervalMs' | 'answerTimeoutMs'>>;

/** What the factory needs of the composition root's PlatformContext. */
export interface TelegramPlatformContext {
  loaded: { config: Pick<KazmaConfig, 'telegram'> };
  core: TelegramPlatformOptions['core'];
  http: { app: Hono };
  logger: Logger;
  /** Timings and retries a test or an operator tunes; each has a default. */
  tuning?: TelegramTuning;
}

/**
 * Builds the Telegram adapter when `telegram.enabled` is true (undefined otherwise): attaches its
 * surface to the core and, in webhook mode, mounts `/telegram/webhook` — so call it before listening.
 * @example const telegram = await telegramPlatform({ loaded, core, http, logger }); await telegram?.start();
 */
export async function telegramPlatform(context: TelegramPlatformContext): Promise<TelegramPlatform | undefined> {
  const config = context.loaded.config.telegram;
  if (!config.enabled) return undefined;
  return new TelegramPlatform({
    ...context.tuning,
    config,
    core: context.core,
    app: context.http.app,
    logger: context.logger.child({ platform: 'telegram' }),
  });
}
export { telegramChecks } from './doctor.ts';
