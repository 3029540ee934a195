// How media is named to the person: sizes in KB/MB, an attachment by its file name or its kind.
import type { Attachment } from '../surface/index.ts';

/** `20 MB`, `1.5 MB`, `900 KB`, `12 bytes` (binary units, as `media.max_bytes` is written). */
export function sizeText(bytes: number): string {
  const mb = bytes / 1024 ** 2;
  if (mb >= 1) return `${Number(mb.toFixed(1))} MB`;
  const kb = bytes / 1024;
  return kb >= 1 ? `${Number(kb.toFixed(1))} KB` : `${bytes} bytes`;
}

/** "the photo", "the file", or the file's name in quotes. */
export function labelOf(attachment: Attachment): string {
  if (attachment.name) return `"${attachment.name}"`;
  return attachment.kind === 'image' ? 'the photo' : attachment.kind === 'audio' ? 'the voice message' : 'the file';
}

/** How long the "🎙 heard: …" line may be: enough to check Kazma heard right, short enough to skip. */
const HEARD_CHARS = 200;

/** The line that shows the person what Kazma heard in their voice message (the model gets all of it). */
export function heardLine(words: string): string {
  const flat = words.replace(/\s+/g, ' ').trim();
  const chars = [...flat]; // whole characters: an Arabic letter or an emoji is never cut in half
  const short = chars.length > HEARD_CHARS ? `${chars.slice(0, HEARD_CHARS).join('').trimEnd()}…` : flat;
  return `🎙 heard: ${short}`;
}
