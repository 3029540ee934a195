// The bytes of a file Kazma sends, read from the copy kept when `send_file` ran (data_dir/files/<sha256>)
// and checked against its digest: an adapter uploads exactly what was approved, or nothing.
import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import type { OutboundFile } from './types.ts';

/** The file's bytes; throws when its copy is gone or no longer the same bytes. */
export async function outboundBytes(file: OutboundFile): Promise<Buffer> {
  const bytes = await readFile(file.path).catch((error: unknown) => {
    throw new Error(`the copy of "${file.name}" kept to send is gone (${(error as NodeJS.ErrnoException).code})`);
  });
  if (createHash('sha256').update(bytes).digest('hex') !== file.sha256)
    throw new Error(`the copy of "${file.name}" kept to send changed since it was approved; it was not sent`);
  return bytes;
}

/** Whether a file is sent as a photo where a platform shows photos apart (JPEG, PNG, WebP, by its name). */
export const isPhotoName = (name: string): boolean => /\.(jpe?g|png|webp)$/i.test(name);
