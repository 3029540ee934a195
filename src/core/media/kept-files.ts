// Copies of files under data_dir/files, named by their SHA-256: the files Kazma sent (`send_file`: every
// attempt at the upload sends the bytes approved) and the files people sent (a turn taken up again reads
// them without downloading). Removed once older than `media.retention`, like the kept transcripts.
import { createHash, randomUUID } from 'node:crypto';
import { mkdir, readdir, readFile, rename, stat, unlink, utimes, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

const sha256Of = (bytes: Uint8Array) => createHash('sha256').update(bytes).digest('hex');

/**
 * Keeps `bytes` as `dir/<sha256>` and returns the digest. A copy already there is the same bytes: it is
 * only dated `now` (when given), so the sweep counts its age from this use, not from the first.
 */
export async function keepBytes(dir: string, bytes: Uint8Array, now?: Date): Promise<string> {
  const sha256 = sha256Of(bytes);
  const kept = join(dir, sha256);
  await mkdir(dir, { recursive: true });
  if (await stat(kept).catch(() => undefined)) {
    if (now) await utimes(kept, now, now).catch(() => undefined); // swept meanwhile: written again next time
    return sha256;
  }
  const partial = `${kept}.${randomUUID()}.part`;
  await writeFile(partial, bytes, { mode: 0o600 });
  await rename(partial, kept); // whole or absent: a crash mid-write leaves only a .part, swept in time
  return sha256;
}

/** The bytes of `dir/<sha256>`; undefined when the copy is gone or no longer those bytes. */
export async function readKept(dir: string, sha256: string): Promise<Uint8Array | undefined> {
  if (!/^[0-9a-f]{64}$/.test(sha256)) return undefined;
  const bytes = await readFile(join(dir, sha256)).catch(() => undefined);
  return bytes && sha256Of(bytes) === sha256 ? bytes : undefined;
}

/** Removes the copies in `dir` last written before `before`; how many went. A missing folder has none. */
export async function pruneKeptFiles(dir: string, before: Date): Promise<number> {
  const names = await readdir(dir).catch((error: NodeJS.ErrnoException) => {
    if (error.code === 'ENOENT') return [] as string[];
    throw error;
  });
  let gone = 0;
  for (const name of names) {
    const path = join(dir, name);
    const stats = await stat(path).catch(() => undefined);
    if (!stats?.isFile() || stats.mtime >= before) continue;
    await unlink(path).catch(() => undefined); // gone meanwhile: another sweep's
    gone++;
  }
  return gone;
}
