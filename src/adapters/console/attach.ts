// `/attach <path>` in `kazma chat`: a file on this machine sent in as a message's attachment, read like a
// file sent on any platform (core/media: within media.max_bytes, a document in the reading worker, an
// image as a data: URL, voice transcribed). The terminal's person is its machine's operator, so the path
// is theirs to name; its reference is the absolute path, opened when the turn runs.
import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import { basename, extname, resolve } from 'node:path';
import type { Attachment, AttachmentDownload } from '../../core/surface/index.ts';

/** `/attach <path>`: the line's path, or undefined for any other line. */
export const attachedPath = (line: string): string | undefined =>
  /^\/attach\s+(.+)$/i
    .exec(line)?.[1]
    ?.trim()
    .replace(/^(["'])(.*)\1$/, '$2');

const TYPES: Record<string, { kind: Attachment['kind']; mime: string }> = {
  '.pdf': { kind: 'document', mime: 'application/pdf' },
  '.txt': { kind: 'document', mime: 'text/plain' },
  '.md': { kind: 'document', mime: 'text/markdown' },
  '.csv': { kind: 'document', mime: 'text/csv' },
  '.json': { kind: 'document', mime: 'application/json' },
  '.png': { kind: 'image', mime: 'image/png' },
  '.jpg': { kind: 'image', mime: 'image/jpeg' },
  '.jpeg': { kind: 'image', mime: 'image/jpeg' },
  '.gif': { kind: 'image', mime: 'image/gif' },
  '.webp': { kind: 'image', mime: 'image/webp' },
  '.ogg': { kind: 'audio', mime: 'audio/ogg' },
  '.oga': { kind: 'audio', mime: 'audio/ogg' },
  '.mp3': { kind: 'audio', mime: 'audio/mpeg' },
  '.m4a': { kind: 'audio', mime: 'audio/mp4' },
  '.wav': { kind: 'audio', mime: 'audio/wav' },
  '.webm': { kind: 'audio', mime: 'audio/webm' },
};

/** The attachment for `path` (from the working directory), or the sentence saying why there is none. */
export async function localAttachment(path: string): Promise<Attachment | string> {
  const full = resolve(path);
  const stats = await stat(full).catch(() => undefined);
  if (!stats) return `⚠️ "${path}" does not exist, so nothing was sent.`;
  if (!stats.isFile()) return `⚠️ "${path}" is not a file, so nothing was sent.`;
  const type = TYPES[extname(full).toLowerCase()];
  return {
    kind: type?.kind ?? 'document',
    ref: full,
    name: basename(full),
    ...(type && { mime: type.mime }),
    size: stats.size,
  };
}

/** Opens an attached file for its turn. */
export async function openLocalFile(attachment: Attachment, signal: AbortSignal): Promise<AttachmentDownload> {
  const stats = await stat(attachment.ref);
  return { size: stats.size, body: createReadStream(attachment.ref, { signal }) };
}
