import { RefusedBeforeEffect } from '../../effects/index.ts';
import { gitFileReasonResolved } from '../git-files.ts';
import { resolveInWorkspace } from '../workspace.ts';

/**
 * Programs that only read the files they are given (the default allow list's readers). They may name
 * git's files, e.g. `grep -r --exclude-dir=.git TODO .`; every other program may not, since it could
 * create, move, copy or overwrite them. `find` is here because rules.ts refuses its writing actions.
 */
const READERS = new Set([
  'ls',
  'cat',
  'head',
  'tail',
  'wc',
  'grep',
  'diff',
  'find',
  'echo',
  'pwd',
  'date',
  'sleep',
  'true',
  'false',
]);

/**
 * Every argument that could name a file must stay inside the workspace: operands, values after
 * `=` (`--output=/x`, `of=/x`), values glued to short options (`-o/x`). Relative words resolve
 * inside the workspace and pass, so a pattern like `TODO` costs nothing; absolute paths outside,
 * `~` and symlinks leading out are refused.
 *
 * `..` is refused in any path, even one that resolves inside: the program resolves it at run time, after a
 * directory on the way may have become a symlink, so no answer given now would still hold.
 *
 * No program but git may name a `.git` component, `.gitattributes` or `.gitmodules` (readers
 * excepted): `mv d .git` or `cp x .git/config` would make the next `git status` run a program of the
 * model's choosing. git's own arguments are checked in git.ts.
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
  if (candidate.split('/').includes('..')) {
    throw new RefusedBeforeEffect(
      `"${candidate}" contains ".."; a path is resolved again when the program runs, so ".." is not allowed: name ` +
        `the path from the workspace root instead`,
    );
  }
  if (name === 'git' || READERS.has(name)) return;
  const gitFile = gitFileReasonResolved(root, real, candidate);
  if (gitFile) throw new RefusedBeforeEffect(gitFile);
}
