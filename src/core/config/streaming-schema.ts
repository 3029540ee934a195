import { z } from 'zod';
import { duration } from './duration.ts';

/** One platform's streaming: on unless turned off here or for all, and its edit rate. */
const platformStreaming = (editInterval: string) =>
  z
    .strictObject({
      /** Unset: `streaming.enabled`. */
      enabled: z.boolean().optional(),
      /** At most one edit of a streamed answer per this long, per chat (the platform's flood limits). */
      edit_interval: duration(editInterval, { min: '100ms' }),
    })
    .prefault({});

/**
 * `streaming` in kazma.yaml: answers shown while the model writes them (docs/configuration.md).
 *
 * @example
 * streaming:
 *   enabled: true
 *   telegram: { edit_interval: 1500ms }
 *   discord: { enabled: false }
 */
export const streamingSchema = z
  .strictObject({
    enabled: z.boolean().default(true),
    /** A turn that answers within this long sends its answer as one message, with no draft first. */
    start_after: duration('500ms'),
    // Telegram allows about one message a second per chat; Slack's chat.update is tier 3 (~50/min);
    // Discord allows 5 edits per 5 s per channel.
    telegram: platformStreaming('1s'),
    slack: platformStreaming('1200ms'),
    discord: platformStreaming('1s'),
    console: platformStreaming('100ms'),
  })
  .prefault({});
