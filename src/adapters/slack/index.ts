// The Slack adapter's public face: the factory the composition root registers (src/platforms.ts).
import type { Hono } from 'hono';
import type { KazmaConfig } from '../../core/config/index.ts';
import type { Logger } from '../../core/log/index.ts';
import { SlackPlatform, type SlackPlatformOptions } from './platform.ts';

export { SlackPlatform, type SlackPlatformOptions } from './platform.ts';
export { EVENTS_PATH } from './receiver.ts';

/** The adapter options that may be tuned from outside. */
export type SlackTuning = Partial<Pick<SlackPlatformOptions, 'retry' | 'ackTimeoutMs'>>;

/** What the factory needs of the composition root's PlatformContext. */
export interface SlackPlatformContext {
  loaded: { config: Pick<KazmaConfig, 'slack'> };
  core: SlackPlatformOptions['core'];
  http: { app: Hono };
  logger: Logger;
  /** Timings and retries a test or an operator tunes; each has a default. */
  tuning?: SlackTuning;
}

/**
 * Builds the Slack adapter when `slack.enabled` is true (undefined otherwise): attaches its surface to
 * the core and, in http mode, mounts `/slack/events` — so call it before listening.
 * @example const slack = await slackPlatform({ loaded, core, http, logger }); await slack?.start();
 */
export async function slackPlatform(context: SlackPlatformContext): Promise<SlackPlatform | undefined> {
  const config = context.loaded.config.slack;
  if (!config.enabled) return undefined;
  return new SlackPlatform({
    ...context.tuning,
    config,
    core: context.core,
    app: context.http.app,
    logger: context.logger.child({ platform: 'slack' }),
  });
}
export { slackChecks } from './doctor.ts';
