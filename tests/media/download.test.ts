// downloadWithin against a RecordingSurface given an openAttachment: a failure to open is the file's
// refusal, told to the person; a stop (the turn's signal aborted at shutdown) is not: the turn stops, and
// the next start takes it up again.
import { describe, expect, it } from 'vitest';
import { downloadWithin, MediaRefusal } from '../../src/core/media/download.ts';
import type { Attachment, AttachmentDownload } from '../../src/core/surface/index.ts';
import { RecordingSurface } from '../helpers/recording-surface.ts';

const photo: Attachment = { kind: 'image', ref: 'file-1' };

/** A surface whose download never answers: it waits for its signal, as a slow platform does. */
class SlowSurface extends RecordingSurface {
  openAttachment(_attachment: Attachment, signal: AbortSignal): Promise<AttachmentDownload> {
    return new Promise((_resolve, reject) =>
      signal.addEventListener('abort', () => reject(new DOMException('This operation was aborted', 'AbortError'))),
    );
  }
}

describe('downloadWithin', () => {
  it('makes a failure to open the file a refusal that says why', async () => {
    const surface = Object.assign(new RecordingSurface('test'), {
      openAttachment: async (): Promise<AttachmentDownload> => {
        throw new Error('the platform answered HTTP 404');
      },
    });
    const read = downloadWithin(surface, photo, { maxBytes: 1024, label: 'the photo' });
    await expect(read).rejects.toThrow(MediaRefusal);
    await expect(read).rejects.toThrow('⚠️ the photo could not be downloaded: the platform answered HTTP 404');
  });

  it('lets a stop through as a stop, not as a refusal of the file', async () => {
    const stop = new AbortController();
    const read = downloadWithin(new SlowSurface('test'), photo, {
      maxBytes: 1024,
      label: 'the photo',
      signal: stop.signal,
    });
    stop.abort();
    await expect(read).rejects.toThrow('This operation was aborted');
    await expect(read).rejects.not.toThrow(MediaRefusal);
  });
});
