// A message's files made into what the model is sent: one user message whose content is the text (a
// caption), each image as a `data:` URL — never the platform's URL, which may carry a bot token — each
// document's text fenced as outside text, and each voice message's transcript (kept once heard, so a turn
// taken up again does not transcribe it twice), shown to the person in a "🎙 heard: …" line. Each file's
// bytes are kept once downloaded, before the model sees them, so a turn taken up again reads the same
// bytes without downloading them. What cannot be read is said to the person, never guessed at.
import type { Attachment, ChatRef, SurfaceRegistry } from '../surface/index.ts';
import { type DocumentLimits, documentKind, readDocument } from './document-reader.ts';
import { downloadWithin, MediaRefusal } from './download.ts';
import type { KeptDownloads } from './kept-downloads.ts';
import { imageTypeOf } from './sniff.ts';
import { type TranscriptionSettings, transcribe } from './transcribe.ts';
import { type TranscriptStore, transcriptKey } from './transcripts.ts';
import { heardLine, labelOf } from './wording.ts';

/** A part of a user message's content, in the OpenAI shape LangChain passes on (and converts for others). */
export type ContentPart = { type: 'text'; text: string } | { type: 'image_url'; image_url: { url: string } };

/** What media reading may do: `media.*` and `model.vision` in kazma.yaml. */
export interface MediaSettings {
  maxBytes: number;
  /** The model takes images; off, an image is not sent and the person is told. */
  vision: boolean;
  documents: DocumentLimits;
  transcription: TranscriptionSettings;
}

/** A message ready for the model: its content, and notes for the person (files not read, voice heard). */
export interface ReadMessage {
  content: string | ContentPart[];
  notes: string[];
  /** Nothing is left for the model (no text, no file read): the turn only tells the person the notes. */
  empty: boolean;
}

/** Options for {@link MediaReader}. */
export interface MediaReaderOptions {
  surfaces: Pick<SurfaceRegistry, 'for'>;
  settings: MediaSettings;
  /** Where transcripts are kept; absent, a voice message is transcribed each time its turn runs. */
  transcripts?: TranscriptStore;
  /** Where downloaded files are kept; absent, a file is downloaded each time its turn runs. */
  downloads?: Pick<KeptDownloads, 'get' | 'keep'>;
}

export class MediaReader {
  readonly #o: MediaReaderOptions;

  constructor(options: MediaReaderOptions) {
    this.#o = options;
  }

  /** Downloads and reads `attachments` of a message in `chat`; `text` is its caption. */
  async read(chat: ChatRef, text: string, attachments: Attachment[], signal?: AbortSignal): Promise<ReadMessage> {
    const notes: string[] = [];
    const parts: ContentPart[] = [];
    for (const attachment of attachments) {
      try {
        parts.push(await this.#part(chat, attachment, notes, signal));
      } catch (error) {
        if (!(error instanceof MediaRefusal)) throw error;
        notes.push(error.message);
      }
    }
    const words = text.trim() === '' ? [] : [{ type: 'text' as const, text }];
    if (parts.length === 0) return { content: text, notes, empty: words.length === 0 };
    return { content: [...words, ...parts], notes, empty: false };
  }

  async #part(chat: ChatRef, attachment: Attachment, notes: string[], signal?: AbortSignal): Promise<ContentPart> {
    const label = labelOf(attachment);
    const { vision } = this.#o.settings;
    if (attachment.kind === 'image' && !vision)
      throw new MediaRefusal(
        `🖼 This model cannot see images (\`model.vision\` is off), so ${label} was not shown to it.`,
      );
    if (attachment.kind === 'document') documentKind(attachment, label); // an unread type is not downloaded
    if (attachment.kind === 'audio') {
      const words = await this.#heard(chat, attachment, label, signal);
      notes.push(heardLine(words));
      return { type: 'text', text: `🎙 ${label}, transcribed:\n${words}` };
    }
    const bytes = await this.#bytes(chat, attachment, label, signal);
    if (attachment.kind === 'document')
      return { type: 'text', text: await readDocument(bytes, attachment, label, this.#o.settings.documents) };
    const mime = imageTypeOf(bytes);
    if (!mime) throw new MediaRefusal(`📎 ${label} is not an image Kazma can read (JPEG, PNG, GIF or WebP).`);
    return { type: 'image_url', image_url: { url: `data:${mime};base64,${Buffer.from(bytes).toString('base64')}` } };
  }

  /** A voice message's words: kept ones, else downloaded, transcribed once and kept. */
  async #heard(chat: ChatRef, attachment: Attachment, label: string, signal?: AbortSignal): Promise<string> {
    const key = transcriptKey(chat, attachment);
    const kept = await this.#o.transcripts?.get(key);
    if (kept !== undefined) return kept;
    const { transcription } = this.#o.settings;
    if (transcription.model === '')
      throw new MediaRefusal(
        `🎙 Kazma does not transcribe voice (\`model.transcription.name\` is empty), so ${label} was not heard.`,
      );
    const bytes = await this.#bytes(chat, attachment, label, signal);
    const words = await transcribe(transcription, bytes, attachment, label, signal);
    if (words === '') throw new MediaRefusal(`🎙 Nothing could be heard in ${label}.`);
    return this.#o.transcripts ? this.#o.transcripts.keep(key, words) : words;
  }

  /** The file's bytes: the copy kept when an earlier run of the turn downloaded it, else downloaded and kept. */
  async #bytes(chat: ChatRef, attachment: Attachment, label: string, signal?: AbortSignal): Promise<Uint8Array> {
    const key = transcriptKey(chat, attachment);
    const kept = await this.#o.downloads?.get(key);
    if (kept) return kept;
    const surface = this.#o.surfaces.for(chat);
    const { maxBytes } = this.#o.settings;
    const bytes = await downloadWithin(surface, attachment, { maxBytes, label, ...(signal && { signal }) });
    await this.#o.downloads?.keep(key, bytes);
    return bytes;
  }
}
