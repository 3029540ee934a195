// data_dir made ready before anything writes there, or one sentence naming the key and what is wrong.
// Every later step (PGlite, the lock, the workspace, a private Redis) assumes a writable directory; a file
// in the way, a read-only mount or a pseudo file system otherwise fail deep inside a library, as a stack or
// — for a path under /proc, where Node's recursive mkdir never returns — as a start that hangs.
import { accessSync, constants, mkdirSync, rmSync, statfsSync, statSync, writeFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { StartupError } from './errors.ts';

/** statfs magic numbers of kernel file systems that hold no data: proc, sysfs, devpts, cgroup2, debugfs. */
const PSEUDO_FILE_SYSTEMS = new Map<number, string>([
  [0x9fa0, 'proc'],
  [0x62656572, 'sysfs'],
  [0x1cd1, 'devpts'],
  [0x63677270, 'cgroup2'],
  [0x64626720, 'debugfs'],
]);

/** Creates `dataDir` when missing and checks that Kazma can write there; throws `data_dir_unusable`. */
export function prepareDataDir(dataDir: string): void {
  const path = resolve(dataDir);
  const missing: string[] = [];
  let existing = path;
  for (; !exists(existing); existing = dirname(existing)) missing.unshift(existing);
  if (!statSync(existing).isDirectory()) unusable(dataDir, `${existing} is a file, not a directory`);
  const pseudo = PSEUDO_FILE_SYSTEMS.get(Number(statfsSync(existing).type));
  if (pseudo) unusable(dataDir, `${existing} is on the kernel's ${pseudo} file system, which stores nothing`);
  // One level at a time: a recursive mkdir is what never returns under /proc.
  for (const dir of missing) {
    try {
      mkdirSync(dir);
    } catch (error) {
      unusable(dataDir, `cannot create ${dir} (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})`);
    }
  }
  const probe = resolve(path, '.kazma-write-check');
  try {
    accessSync(path, constants.W_OK);
    writeFileSync(probe, '');
    rmSync(probe, { force: true });
  } catch (error) {
    unusable(dataDir, `cannot write in ${path} (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})`);
  }
}

function exists(path: string): boolean {
  try {
    statSync(path);
    return true;
  } catch {
    return false;
  }
}

function unusable(dataDir: string, why: string): never {
  throw new StartupError(
    'data_dir_unusable',
    `data_dir (${dataDir}) cannot hold Kazma's data: ${why}. Set data_dir in kazma.yaml to a writable ` + `directory.`,
  );
}
