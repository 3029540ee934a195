// Voice messages and audio files made into words: `POST <base_url>/audio/transcriptions` of an
// OpenAI-compatible endpoint (multipart: the file, named with an extension the endpoint reads the format
// from, and `model`), answered `{ text }`. What goes wrong is a sentence for the person naming the keys.
import type { KazmaConfig } from '../config/index.ts';
import type { Attachment } from '../surface/index.ts';
import { MediaRefusal } from './download.ts';

/** Where transcripts come from: `model.transcription`, else the model's own endpoint. */
export interface TranscriptionSettings {
  /** Without the trailing slash; empty with `model` empty: voice is not transcribed. */
  baseUrl: string;
  apiKey: string;
  /** `model.transcription.name`; empty: off. */
  model: string;
  timeoutMs: number;
}

const OPENAI = 'https://api.openai.com/v1';

/**
 * `model.transcription`: its own base_url with its own api_key only, else the chat model's endpoint and
 * key (an Anthropic model's endpoint has no transcriptions: that is said when a voice message comes).
 */
export function transcriptionSettings(config: KazmaConfig): TranscriptionSettings {
  const own = config.model.transcription;
  const shared = own.base_url === '';
  const modelUrl = config.model.base_url || (config.model.provider === 'openai' ? OPENAI : 'https://api.anthropic.com');
  return {
    baseUrl: (shared ? modelUrl : own.base_url).replace(/\/+$/, ''),
    apiKey: shared ? own.api_key || config.model.api_key : own.api_key,
    model: own.name.trim(),
    timeoutMs: config.model.timeout,
  };
}

/** The extension an endpoint reads an audio type from (OpenAI goes by the file's name). */
const EXTENSIONS: Record<string, string> = {
  'audio/ogg': 'ogg',
  'audio/opus': 'ogg',
  'audio/mpeg': 'mp3',
  'audio/mp3': 'mp3',
  'audio/mp4': 'm4a',
  'audio/x-m4a': 'm4a',
  'audio/aac': 'm4a',
  'audio/wav': 'wav',
  'audio/x-wav': 'wav',
  'audio/webm': 'webm',
  'audio/flac': 'flac',
  'video/mp4': 'mp4',
  'video/webm': 'webm',
};

/** The name the file is sent under: its own, or one with the extension of its type. */
export function audioFileName(attachment: Attachment): string {
  if (attachment.name && /\.[a-z0-9]{2,5}$/i.test(attachment.name)) return attachment.name;
  const mime = attachment.mime?.split(';')[0]?.trim().toLowerCase() ?? '';
  return `${attachment.name ?? 'voice'}.${EXTENSIONS[mime] ?? 'ogg'}`;
}

/** The words in `bytes`, or a {@link MediaRefusal} saying why there are none. */
export async function transcribe(
  settings: TranscriptionSettings,
  bytes: Uint8Array,
  attachment: Attachment,
  label: string,
  signal?: AbortSignal,
): Promise<string> {
  const { baseUrl, apiKey, model, timeoutMs } = settings;
  const failed = (why: string) =>
    new MediaRefusal(
      `⚠️ ${label} could not be transcribed: ${why}; check \`model.transcription\` (name, base_url, api_key).`,
    );
  const form = new FormData();
  const type = attachment.mime?.split(';')[0]?.trim() || 'application/octet-stream';
  form.append('file', new Blob([new Uint8Array(bytes)], { type }), audioFileName(attachment));
  form.append('model', model);
  const timeout = AbortSignal.timeout(timeoutMs);
  let response: Response;
  try {
    response = await fetch(`${baseUrl}/audio/transcriptions`, {
      method: 'POST',
      headers: apiKey ? { authorization: `Bearer ${apiKey}` } : {},
      body: form,
      signal: signal ? AbortSignal.any([signal, timeout]) : timeout,
    });
  } catch (error) {
    if (signal?.aborted) throw error; // a stop, not the file's fault: the turn is taken up again
    throw failed(
      `${baseUrl} did not answer (${timeout.aborted ? `over ${timeoutMs / 1000} s` : (error as Error).message})`,
    );
  }
  if (!response.ok) {
    const body = (await response.text().catch(() => '')).slice(0, 200).replace(/\s+/g, ' ');
    throw failed(`the endpoint answered HTTP ${response.status}${body ? ` (${body})` : ''}`);
  }
  const reply = (await response.json().catch(() => ({}))) as { text?: unknown };
  if (typeof reply.text !== 'string') throw failed('the endpoint answered without a text');
  return reply.text.trim();
}
