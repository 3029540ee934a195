import { closeSync, openSync, readFileSync, rmSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { prepareDataDir } from '../data-dir.ts';
import { StartupError } from '../errors.ts';

/** Raised when another live process owns the data directory. */
export class DataDirLockedError extends StartupError {
  readonly pid: number;
  constructor(dataDir: string, pid: number) {
    super(
      'data_dir_locked',
      `Another Kazma (pid ${pid}) is already using ${dataDir}. The embedded database allows one process ` +
        `per data directory: stop that process, or set database.url (DATABASE_URL) to PostgreSQL to run several.`,
    );
    this.pid = pid;
  }
}

export interface DataDirLock {
  readonly path: string;
  release(): void;
}

/**
 * Takes `<dataDir>/kazma.lock` for this process. PGlite has no lock of its own and two processes on one
 * directory silently lose rows, so this is what keeps a second Kazma out. A lock whose pid is no longer
 * alive (a crash) is taken over.
 */
export function lockDataDir(dataDir: string, pid = process.pid): DataDirLock {
  // Every opener of the embedded database comes here (doctor too): a data_dir that cannot hold data is named.
  prepareDataDir(dataDir);
  const path = join(dataDir, 'kazma.lock');
  for (let attempt = 0; attempt < 3; attempt++) {
    try {
      const fd = openSync(path, 'wx');
      writeSync(fd, String(pid));
      closeSync(fd);
      return { path, release: () => releaseIfOurs(path, pid) };
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      const owner = readOwner(path);
      if (owner !== undefined && owner !== pid && isAlive(owner)) throw new DataDirLockedError(dataDir, owner);
      rmSync(path, { force: true }); // stale: its owner died without releasing
    }
  }
  throw new StartupError('data_dir_lock_failed', `Could not take the lock ${path}; remove it if no Kazma is running.`);
}

/** The live process, other than this one, that holds `dataDir`'s lock; undefined when none does. */
export function dataDirOwner(dataDir: string): number | undefined {
  const owner = readOwner(join(dataDir, 'kazma.lock'));
  return owner !== undefined && owner !== process.pid && isAlive(owner) ? owner : undefined;
}

function readOwner(path: string): number | undefined {
  try {
    const pid = Number.parseInt(readFileSync(path, 'utf8').trim(), 10);
    return Number.isInteger(pid) && pid > 0 ? pid : undefined;
  } catch {
    return undefined;
  }
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

function releaseIfOurs(path: string, pid: number): void {
  if (readOwner(path) === pid) rmSync(path, { force: true });
}
