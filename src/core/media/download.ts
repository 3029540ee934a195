// An attachment's bytes, read within `media.max_bytes`: refused from the size the platform declared before
// anything is downloaded, from the download's own Content-Length, and cut off while streaming when the bytes
// turn out to be more than either said.
import type { Attachment, Surface } from '../surface/index.ts';
import { sizeText } from './wording.ts';

/** Why an attachment was not read: a sentence for the person, naming what to change when something can. */
export class MediaRefusal extends Error {}

/** The whole attachment, or a {@link MediaRefusal}; `label` names it in the refusal. */
export async function downloadWithin(
  surface: Surface,
  attachment: Attachment,
  options: { maxBytes: number; label: string; signal?: AbortSignal },
): Promise<Uint8Array> {
  const { maxBytes, label } = options;
  const over = (size: number) =>
    new MediaRefusal(
      `📎 ${label} is ${sizeText(size)}, over the ${sizeText(maxBytes)} limit for files (\`media.max_bytes\`), ` +
        'so it was not read.',
    );
  if (attachment.size !== undefined && attachment.size > maxBytes) throw over(attachment.size);
  if (!surface.openAttachment) throw new MediaRefusal(`📎 Kazma does not read files on ${surface.platform} yet.`);
  const aborter = new AbortController();
  const stop = () => aborter.abort();
  options.signal?.addEventListener('abort', stop, { once: true });
  try {
    const download = await surface.openAttachment(attachment, aborter.signal).catch((error: unknown) => {
      // Stopping (shutdown) is not the file's fault: the turn stops, and is taken up again at the next start.
      if (error instanceof MediaRefusal || options.signal?.aborted) throw error;
      throw new MediaRefusal(`⚠️ ${label} could not be downloaded: ${(error as Error).message}`);
    });
    if (download.size !== undefined && download.size > maxBytes) throw over(download.size);
    const pieces: Uint8Array[] = [];
    let read = 0;
    for await (const piece of download.body) {
      read += piece.length;
      if (read > maxBytes)
        throw new MediaRefusal(
          `📎 ${label} turned out to be over the ${sizeText(maxBytes)} limit for files (\`media.max_bytes\`) ` +
            'while it downloaded, so it was not read.',
        );
      pieces.push(piece);
    }
    return Buffer.concat(pieces);
  } finally {
    // Ends the download when it stopped early (over the limit, a shutdown); a finished one has nothing left.
    aborter.abort();
    options.signal?.removeEventListener('abort', stop);
  }
}
