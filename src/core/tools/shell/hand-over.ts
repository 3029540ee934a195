import { closeSync, constants, fchownSync, fstatSync, lchownSync, lstatSync, openSync, readdirSync } from 'node:fs';
import type { RunAs } from './sandbox.ts';

const DIRECTORY = constants.O_RDONLY | constants.O_DIRECTORY | constants.O_NOFOLLOW;

/**
 * Makes everything in `root` (a folder Kazma made or the operator chose, resolved) belong to `user`, so a
 * command that runs as that user (Kazma runs as root; see `SandboxUser`) can write the workspace, files
 * Kazma's own tools wrote there included. Only what belongs to someone else is changed, so an unchanged
 * tree costs one lstat per entry and no inode is touched.
 *
 * Safe against the tree changing while it is walked: each directory is opened relative to the one above
 * it (through `/proc/self/fd/N/name`) with `O_NOFOLLOW`, so a directory swapped for a link is never
 * followed out of `root`; other entries are changed with lchown, which changes a link, never its target.
 * A file with more than one link is left as it is: a hard link could name a file outside `root`.
 *
 * @example
 * handOver('/srv/kazma-workspace', { uid: 65534, gid: 65534 });
 */
export function handOver(root: string, user: RunAs): void {
  const fd = openSync(root, DIRECTORY);
  try {
    walk(fd, user);
  } finally {
    closeSync(fd);
  }
}

function walk(dirFd: number, user: RunAs): void {
  const own = fstatSync(dirFd);
  if (own.uid !== user.uid || own.gid !== user.gid) fchownSync(dirFd, user.uid, user.gid);
  const at = `/proc/self/fd/${dirFd}`;
  for (const entry of readdirSync(at, { withFileTypes: true })) {
    const path = `${at}/${entry.name}`;
    try {
      if (entry.isDirectory()) {
        const fd = openSync(path, DIRECTORY);
        try {
          walk(fd, user);
        } finally {
          closeSync(fd);
        }
        continue;
      }
      const stat = lstatSync(path);
      if (stat.isDirectory() || stat.nlink > 1) continue; // became a directory since readdir: not followed
      if (stat.uid !== user.uid || stat.gid !== user.gid) lchownSync(path, user.uid, user.gid);
    } catch (error) {
      // Gone, or swapped for a link (ELOOP, ENOTDIR) since readdir: nothing to hand over there.
      if (!['ENOENT', 'ELOOP', 'ENOTDIR'].includes((error as NodeJS.ErrnoException).code ?? '')) throw error;
    }
  }
}
