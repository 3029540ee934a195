import { lstatSync, readlinkSync, realpathSync } from 'node:fs';
import path from 'node:path';
import { RefusedBeforeEffect } from '../effects/index.ts';

// The kernel gives up after 40 links in one lookup (ELOOP); so do we.
const MAX_LINKS = 40;

/**
 * Resolves `target` (relative to the workspace, or absolute) to a real path and refuses it unless it
 * stays inside the workspace. The path is walked one component at a time on the real file system, the
 * way the kernel does: a symlink is replaced by its target where it stands, and `..` leaves the real
 * directory reached so far. (Collapsing `..` first, as `path.resolve` does, is wrong: with `d -> .`,
 * `d/d/../..` names the workspace's grandparent, not the workspace.) The path need not exist yet:
 * the missing rest is appended as plain names. Synchronous on purpose, so prechecks can call it.
 *
 * The answer is only as good as the moment it was taken (a directory could be swapped for a link
 * afterwards), so file tools open what it returns with {@link openInWorkspace}, and the shell runs
 * inside the sandbox.
 *
 * @example
 * resolveInWorkspace('/srv/ws', 'notes/a.md') // '/srv/ws/notes/a.md'
 * resolveInWorkspace('/srv/ws', '../etc')     // throws RefusedBeforeEffect
 */
export function resolveInWorkspace(workspace: string, target: string): string {
  if (target.startsWith('~')) {
    throw new RefusedBeforeEffect(
      `"${target}" is in a home directory, outside the workspace; use a path inside the workspace`,
    );
  }
  if (target.includes('\0')) throw new RefusedBeforeEffect('a path must not contain a NUL byte');
  const root = workspaceRoot(workspace);
  const real = walk(path.isAbsolute(target) ? target : `${root}/${target}`, target);
  if (!isInside(root, real)) {
    throw new RefusedBeforeEffect(`"${target}" is outside the workspace (${root}); use a path inside it`);
  }
  return real;
}

/** The workspace's own real path; refuses when it does not exist. */
export function workspaceRoot(workspace: string): string {
  try {
    return realpathSync(workspace);
  } catch {
    throw new RefusedBeforeEffect(`the workspace ${workspace} does not exist; create it or fix tools.workspace`);
  }
}

/** True when `candidate` is `root` or below it (both real, absolute paths). */
export function isInside(root: string, candidate: string): boolean {
  const rel = path.relative(root, candidate);
  return rel === '' || (rel !== '..' && !rel.startsWith(`..${path.sep}`) && !path.isAbsolute(rel));
}

/** Resolves an absolute, unnormalised path component by component; `shown` is what the caller gave. */
function walk(absolute: string, shown: string): string {
  let done = '/';
  let todo = split(absolute);
  let links = 0;
  // While todo is longer than this, the part being resolved came from a symlink's target.
  let linkEnd = Number.POSITIVE_INFINITY;
  while (todo.length > 0) {
    const inLink = todo.length > linkEnd;
    const part = todo.shift() as string;
    if (part === '..') {
      done = path.dirname(done);
      continue;
    }
    const next = path.join(done, part);
    let isLink: boolean;
    try {
      isLink = lstatSync(next).isSymbolicLink();
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code !== 'ENOENT') throw new RefusedBeforeEffect(`cannot resolve "${shown}" (${code ?? 'error'} at ${next})`);
      // Writing through a link to a missing target would create the target, which may be anywhere.
      if (inLink) throw new RefusedBeforeEffect(`"${shown}" goes through a symlink to a missing target`);
      // The kernel fails `missing/..`; a tool creating the directories would not, so refuse the ambiguity.
      if (todo.includes('..'))
        throw new RefusedBeforeEffect(`"${shown}" has ".." after a directory that does not exist`);
      return path.join(next, ...todo);
    }
    if (!isLink) {
      done = next;
      continue;
    }
    if (++links > MAX_LINKS) throw new RefusedBeforeEffect(`"${shown}" goes through too many symlinks`);
    const target = readlinkSync(next);
    if (path.isAbsolute(target)) done = '/';
    linkEnd = Math.min(linkEnd, todo.length);
    todo = [...split(target), ...todo];
  }
  return done;
}

function split(file: string): string[] {
  return file.split('/').filter((part) => part !== '' && part !== '.');
}
