import path from 'node:path';
import { RefusedBeforeEffect } from '../../effects/refused.ts';
import { resolveInWorkspace } from '../workspace.ts';

/**
 * Every argument that could name a file must stay inside the workspace: operands, values after
 * `=` (`--output=/x`, `of=/x`), values glued to short options (`-o/x`). Relative words resolve
 * inside the workspace and pass, so a pattern like `TODO` costs nothing; absolute paths outside,
 * `..` escapes, `~` and symlinks leading out are refused.
 *
 * Paths into `.git/` are refused for every program but git: writing `.git/config` or a hook with
 * `cp` would make the next `git status` run a program of the model's choosing.
 */
export function checkPathArgs(name: string, args: readonly string[], root: string): void {
  let options = true;
  for (const arg of args) {
    if (options && arg === '--') {
      options = false;
      continue;
    }
    for (const candidate of candidates(arg, options)) check(name, candidate, root);
  }
}

function candidates(arg: string, options: boolean): string[] {
  const found: string[] = [];
  const isFlag = options && arg.startsWith('-') && arg !== '-';
  if (!isFlag && arg !== '-') found.push(arg);
  const eq = arg.indexOf('=');
  if (eq >= 0 && eq < arg.length - 1) found.push(arg.slice(eq + 1));
  // `-o/tmp/x`: a value glued to a one-letter option, recognisable when it looks like a path.
  if (isFlag && !arg.startsWith('--') && eq < 0) {
    const glued = arg.slice(2);
    if (/^(\/|~|\.\.?(\/|$))/.test(glued)) found.push(glued);
  }
  return found;
}

function check(name: string, candidate: string, root: string): void {
  const real = resolveInWorkspace(root, candidate);
  if (name === 'git') return;
  const parts = path.relative(root, real).split(path.sep);
  const gitDir = parts.indexOf('.git');
  if (gitDir >= 0 && gitDir < parts.length - 1) {
    throw new RefusedBeforeEffect(
      `"${candidate}" is inside a .git directory; changing git's files directly can make git run programs, so use git commands instead`,
    );
  }
}
