// The copies of files Kazma sent (`send_file`), kept under data_dir/files by their SHA-256 so a send taken
// up again uploads the same bytes: removed once older than `media.retention`, like the kept transcripts.
import { readdir, stat, unlink } from 'node:fs/promises';
import { join } from 'node:path';

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
