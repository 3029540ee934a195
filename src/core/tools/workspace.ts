import { lstatSync, realpathSync } from 'node:fs';
import path from 'node:path';
import { RefusedBeforeEffect } from '../effects/refused.ts';

/**
 * Resolves `target` (relative to the workspace, or absolute) to a real path and refuses it unless it
 * stays inside the workspace. Symlinks are followed, so a link inside the workspace that points out
 * of it is refused too. The path need not exist yet: the deepest existing ancestor is resolved and
 * the rest appended. Synchronous on purpose, so prechecks can call it.
 *
 * The answer is only as good as the moment it was taken (a link could be swapped afterwards), so
 * tools call it again right before they touch the file.
 *
 * @example
 * resolveInWorkspace('/srv/ws', 'notes/a.md') // '/srv/ws/notes/a.md'
 * resolveInWorkspace('/srv/ws', '../etc')     // throws RefusedBeforeEffect
 */
export function resolveInWorkspace(workspace: string, target: string): string {
  if (target.startsWith('~')) {
    throw new RefusedBeforeEffect(`"${target}" is in a home directory, outside the workspace; use a path inside the workspace`);
  }
  if (target.includes('\0')) throw new RefusedBeforeEffect('a path must not contain a NUL byte');
  const root = workspaceRoot(workspace);
  const real = realpathLoose(path.resolve(root, target));
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

function realpathLoose(absolute: string): string {
  const tail: string[] = [];
  let current = absolute;
  for (;;) {
    try {
      return path.join(realpathSync(current), ...tail.reverse());
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code !== 'ENOENT') throw new RefusedBeforeEffect(`cannot resolve "${absolute}" (${code ?? 'error'})`);
      // The name exists but does not resolve: a dangling symlink. Writing through it would create
      // its target, which may be anywhere, so it is refused rather than treated as "not there yet".
      if (exists(current)) throw new RefusedBeforeEffect(`"${current}" is a symlink to a missing target`);
      const parent = path.dirname(current);
      if (parent === current) return absolute;
      tail.push(path.basename(current));
      current = parent;
    }
  }
}

function exists(file: string): boolean {
  try {
    lstatSync(file);
    return true;
  } catch {
    return false;
  }
}
