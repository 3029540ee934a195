import { constants, existsSync } from 'node:fs';
import { mkdir, open, type FileHandle } from 'node:fs/promises';
import path from 'node:path';
import { KazmaError } from '../errors.ts';
import { isInside } from './workspace.ts';

/** A directory on the way to a file changed (became a link, vanished) between the check and the open. */
export class WorkspaceChangedError extends KazmaError {
  constructor(shown: string, cause: unknown) {
    const code = (cause as NodeJS.ErrnoException).code ?? 'error';
    super(
      'workspace_changed',
      `"${shown}" changed while it was being opened (${code}); nothing was read or written through it. Try again.`,
      { cause },
    );
  }
}

/** Options for {@link openInWorkspace}. */
export interface OpenInWorkspaceOptions {
  /** `fs.constants` open flags for the last component, e.g. `O_RDONLY`; `O_NOFOLLOW` is always added. */
  flags: number;
  /** Mode for a file the flags create. Default 0o666 (less the umask). */
  mode?: number;
  /** Create missing directories on the way (as `mkdir -p` would, but never through a link). Default false. */
  createParents?: boolean;
}

const DIRECTORY = constants.O_RDONLY | constants.O_DIRECTORY | constants.O_NOFOLLOW;

/**
 * Opens `real` — a path {@link resolveInWorkspace} returned, so free of links at the time of the check —
 * by walking down from the workspace root one directory at a time. Each step opens the next name
 * relative to the directory already open (through `/proc/self/fd/N/name`) with `O_NOFOLLOW`, so a
 * component swapped for a symlink after the check is refused ({@link WorkspaceChangedError}) instead
 * of followed out of the workspace. Race-free on Linux; elsewhere see `openDirect`.
 *
 * @example
 * const handle = await openInWorkspace(root, resolveInWorkspace(root, 'notes/a.md'), { flags: constants.O_RDONLY });
 */
export async function openInWorkspace(
  root: string,
  real: string,
  options: OpenInWorkspaceOptions,
): Promise<FileHandle> {
  if (!isInside(root, real)) throw new Error(`openInWorkspace: ${real} is not inside ${root}`); // a caller's bug
  if (!HAS_PROC_FD) return openDirect(real, options);
  const parts = path.relative(root, real).split(path.sep).filter(Boolean);
  const last = parts.pop();
  // The root is the operator's configured directory, already resolved: it is opened as it is.
  let dir = await open(root, last === undefined ? options.flags | constants.O_DIRECTORY : DIRECTORY);
  if (last === undefined) return dir;
  try {
    for (const part of parts) {
      const at = `/proc/self/fd/${dir.fd}/${part}`;
      if (options.createParents) await mkdir(at).catch(ignore('EEXIST'));
      const next = await open(at, DIRECTORY).catch(explain(root, real));
      await dir.close();
      dir = next;
    }
    return await open(
      `/proc/self/fd/${dir.fd}/${last}`,
      options.flags | constants.O_NOFOLLOW,
      options.mode ?? 0o666,
    ).catch(explain(root, real));
  } finally {
    await dir.close();
  }
}

// Without /proc (macOS, for development) there is no portable openat from Node: open the checked path
// as it is, still refusing a link in its last component. The sandbox, Linux-only too, is the real fence there.
const HAS_PROC_FD = existsSync('/proc/self/fd');

async function openDirect(real: string, options: OpenInWorkspaceOptions): Promise<FileHandle> {
  if (options.createParents) await mkdir(path.dirname(real), { recursive: true });
  return open(real, options.flags | constants.O_NOFOLLOW, options.mode ?? 0o666);
}

/**
 * A link or a file where the check saw a directory (ELOOP, ENOTDIR) is the race this exists for; a missing
 * name is an ordinary error, said without the /proc path it was opened through.
 */
function explain(root: string, real: string): (error: unknown) => never {
  return (error) => {
    const code = (error as NodeJS.ErrnoException).code;
    const shown = path.relative(root, real);
    if (code === 'ELOOP' || code === 'ENOTDIR') throw new WorkspaceChangedError(shown, error);
    if (code === 'ENOENT') throw new Error(`"${shown}" does not exist in the workspace`, { cause: error });
    throw error;
  };
}

function ignore(code: string): (error: unknown) => void {
  return (error) => {
    if ((error as NodeJS.ErrnoException).code !== code) throw error;
  };
}
