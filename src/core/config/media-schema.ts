import { z } from 'zod';
import { size } from './size.ts';

/**
 * `media` in kazma.yaml: files people send (docs/chat.md). `max_bytes` is checked from the size the
 * platform declares, before anything is downloaded, and again while the bytes stream in.
 *
 * @example
 * media:
 *   max_bytes: 20MB
 */
export const mediaSchema = z
  .strictObject({
    /** The largest file read; the default is Telegram's own limit for a bot's download. */
    max_bytes: size('20MB', { min: '1KB' }),
  })
  .prefault({});
