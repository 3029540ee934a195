// A real, small filesystem for a test that needs a full disk: a tmpfs mounted for the test (mount(2)
// needs root, which the test machines give; without it the test fails saying so, it does not pass
// quietly). Filling it is done by writing a file until the kernel answers ENOSPC, so what the database
// then meets is the operating system's own "No space left on device".
import { execFile } from 'node:child_process';
import { closeSync, mkdtempSync, openSync, rmSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

export interface TinyDisk {
  /** The mount point. */
  dir: string;
  /** Writes a filler file until the filesystem has no block left. */
  fill(): void;
  /** Removes the filler file. */
  free(): void;
  unmount(): Promise<void>;
}

/** Mounts a tmpfs of `sizeMb` on a new directory (mode 0777, so the PostgreSQL server may own a folder in it). */
export async function mountTinyDisk(sizeMb: number): Promise<TinyDisk> {
  const dir = mkdtempSync(join(tmpdir(), 'kazma-tiny-disk-'));
  try {
    await run('mount', ['-t', 'tmpfs', '-o', `size=${sizeMb}m,mode=0777`, 'tmpfs', dir]);
  } catch (error) {
    rmSync(dir, { recursive: true, force: true });
    throw new Error(`a full-disk test mounts a tmpfs, which needs root: ${(error as Error).message}`, { cause: error });
  }
  const filler = join(dir, 'filler');
  return {
    dir,
    fill() {
      const fd = openSync(filler, 'a');
      try {
        for (const size of [1 << 20, 4096, 512]) {
          const chunk = Buffer.alloc(size, 1);
          try {
            for (;;) writeSync(fd, chunk);
          } catch (error) {
            if ((error as NodeJS.ErrnoException).code !== 'ENOSPC') throw error;
          }
        }
      } finally {
        closeSync(fd);
      }
    },
    free() {
      rmSync(filler, { force: true });
    },
    async unmount() {
      await run('umount', ['-l', dir]);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
