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
  return attachment.kind === 'image' ? 'the photo' : 'the file';
}
