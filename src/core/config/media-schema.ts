import { z } from 'zod';
import { duration } from './duration.ts';
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
    /** The most characters of a document's text the model gets; a longer one is cut, with a note. */
    max_document_chars: z.number().int().min(1_000).default(50_000),
    /** Reading one document (in a worker thread) is stopped past this long, or past this much memory. */
    parse_timeout: duration('20s', { min: '1s' }),
    parse_memory: size('256MB', { min: '32MB' }),
    /** How long a voice message's transcript and the copies of files sent and received (data_dir/files) last. */
    retention: duration('30d', { min: '1h' }),
  })
  .prefault({});

/**
 * `model.transcription` in kazma.yaml: voice messages and audio files are transcribed through an
 * OpenAI-compatible `POST <base_url>/audio/transcriptions` (multipart). `base_url` empty: the model's own
 * endpoint, with the model's key; a `base_url` of its own gets only its own `api_key`, never the model's.
 * `name` empty: voice is not transcribed, and the person is told.
 */
export const transcriptionSchema = z
  .strictObject({
    name: z.string().default('whisper-1'),
    base_url: z.string().default(''),
    api_key: z.string().default(''),
  })
  .prefault({});
