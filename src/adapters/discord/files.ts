// Attachments of a message: each becomes an Attachment whose ref is its CDN URL (signed and expiring, so
// a turn taken up much later may find it gone and says so), downloaded when the turn runs. The URL needs
// no token; still, only Discord's CDN (or the origin of `discord.api`) is fetched, whatever a message says.
import type { Attachment, AttachmentDownload } from '../../core/surface/index.ts';

/** What Kazma reads of a discord.js Attachment. */
export interface AttachmentLike {
  url: string;
  name: string;
  contentType: string | null;
  size: number;
}

export function attachmentsOf(files: Iterable<AttachmentLike>): Attachment[] {
  return [...files].map((file) => ({
    // A voice message is an `audio/ogg` attachment (flagged IS_VOICE_MESSAGE): heard, as any audio file.
    kind: file.contentType?.startsWith('image/')
      ? ('image' as const)
      : file.contentType?.startsWith('audio/')
        ? ('audio' as const)
        : ('document' as const),
    ref: file.url,
    name: file.name,
    ...(file.contentType !== null && { mime: file.contentType }),
    size: file.size,
  }));
}

const CDN = new Set(['https://cdn.discordapp.com', 'https://media.discordapp.net']);

/** Downloads an attachment from Discord's CDN. */
export async function openDiscordFile(
  api: string,
  attachment: Attachment,
  signal: AbortSignal,
): Promise<AttachmentDownload> {
  const url = new URL(attachment.ref);
  if (!CDN.has(url.origin) && url.origin !== new URL(api).origin)
    throw new Error(`the file is not on Discord's CDN (${url.origin})`);
  const response = await fetch(url, { signal });
  if (!response.ok || !response.body) {
    await response.body?.cancel();
    // A signed URL expires (about a day): an old message's file is gone.
    throw new Error(`Discord's CDN answered HTTP ${response.status}; the link may have expired, send it again`);
  }
  const length = Number(response.headers.get('content-length') ?? Number.NaN);
  return { body: response.body, ...(Number.isFinite(length) && { size: length }) };
}
