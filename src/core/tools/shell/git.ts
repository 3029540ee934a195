import path from 'node:path';
import { RefusedBeforeEffect } from '../../effects/index.ts';
import { gitFileReason, hasGitDirComponent } from '../git-files.ts';
import { resolveInWorkspace } from '../workspace.ts';
import { isExecKey } from './git-keys.ts';

// Global options that take the next argument as their value (`git -C dir status`).
const GLOBAL_WITH_VALUE = new Set([
  '-C',
  '-c',
  '--git-dir',
  '--work-tree',
  '--namespace',
  '--config-env',
  '--exec-path',
]);
// Subcommands that exist to run arbitrary commands, hooks, helpers or foreign tools.
const EXEC_SUBCOMMANDS = new Set([
  'filter-branch',
  'difftool',
  'mergetool',
  'instaweb',
  'web--browse',
  'daemon',
  'shell',
  'upload-pack',
  'receive-pack',
  'upload-archive',
  'hook',
  'send-email',
  'imap-send',
  'credential',
  'credential-store',
  'credential-cache',
  'remote-ext',
  'remote-fd',
  'cvsserver',
  'cvsimport',
  'cvsexportcommit',
  'archimport',
  'quiltimport',
  'svn',
  'p4',
]);
// `git config` forms that only read or remove, so naming an exec-capable key there is harmless.
const CONFIG_READS = new Set([
  '--get',
  '--get-all',
  '--get-regexp',
  '--get-urlmatch',
  '-l',
  '--list',
  '--unset',
  '--unset-all',
  '--remove-section',
  'get',
  'list',
  'unset',
  'remove-section',
]);

/**
 * git can run programs in many ways besides its own subcommands: per-call config (`-c`,
 * `--config-env`), config it is told to write (aliases starting with `!`, drivers, filters, helpers:
 * see git-keys.ts), transports (`--upload-pack`, `ext::`), subcommands such as `bisect run`, and a
 * git directory the model wrote itself (`--git-dir=notes`, `--separate-git-dir`, a path with a `.git`
 * component). Each is refused here with a reason. `-C` must point inside the workspace; `--git-dir`
 * only at the workspace's own `.git`, `--work-tree` only at the workspace.
 */
export function checkGit(args: readonly string[], root: string): void {
  for (const arg of args) {
    if (/core\.fsmonitor/i.test(arg))
      refuse('`core.fsmonitor` makes git run a program on every command; it is never allowed');
    if (/^--(upload-pack|receive-pack|exec)(=|$)/.test(arg))
      refuse(`\`git ${arg.split('=')[0]}\` names a program for git to run`);
    if (/^ext::/i.test(arg)) refuse('the `ext::` transport runs a command; use an https or ssh URL');
    // A template directory is copied into .git, hooks included.
    if (/^--template(=|$)/.test(arg)) refuse('`git --template` copies hooks into the repository; it is not allowed');
    if (/^--separate-git-dir(=|$)/.test(arg))
      refuse('`git --separate-git-dir` puts the repository in a directory of your choosing; it is not allowed');
  }
  let index = 0;
  for (; index < args.length; index++) {
    const arg = args[index] ?? '';
    if (!arg.startsWith('-')) break;
    if (arg === '-c' || (arg.startsWith('-c') && !arg.startsWith('--'))) {
      refuse('`git -c` sets configuration for one call, which can make git run programs; it is not allowed');
    }
    if (arg.startsWith('--config-env'))
      refuse('`git --config-env` sets configuration from the environment; it is not allowed');
    if (arg.startsWith('--exec-path'))
      refuse('`git --exec-path` changes where git finds its programs; it is not allowed');
    const value = optionValue(arg, args[index + 1]);
    if (value.option === '-C') checkC(value.value, root);
    if (value.option === '--git-dir') checkGitDir(value.value, root);
    if (value.option === '--work-tree') checkWorkTree(value.value, root);
    if (GLOBAL_WITH_VALUE.has(arg)) index++;
  }
  const sub = args[index];
  const rest = args.slice(index + 1);
  if (sub === undefined) return;
  for (const arg of [sub, ...rest]) {
    for (const word of [arg, arg.slice(arg.indexOf('=') + 1)]) {
      if (hasGitDirComponent(word))
        refuse(`\`git ... ${arg}\` names a path in a .git directory; let git manage its own files`);
    }
  }
  if (EXEC_SUBCOMMANDS.has(sub)) refuse(`\`git ${sub}\` runs other programs; it is not allowed`);
  if (sub === 'bisect' && rest[0] === 'run') refuse('`git bisect run` runs a command; it is not allowed');
  if (sub === 'submodule' && rest.includes('foreach'))
    refuse('`git submodule foreach` runs a command; it is not allowed');
  if (sub === 'rebase' && rest.some((arg) => arg === '-x' || /^-[^-]*x/.test(arg))) {
    refuse('`git rebase -x` runs a command after each commit; it is not allowed');
  }
  if ((sub === 'clone' || sub === 'fetch' || sub === 'pull' || sub === 'ls-remote') && rest.includes('-u')) {
    refuse(`\`git ${sub} -u\` names a program for git to run (--upload-pack)`);
  }
  if (sub === 'clone' && rest.some((arg) => arg === '-c' || arg.startsWith('--config'))) {
    refuse('`git clone -c/--config` writes configuration that can make git run programs; it is not allowed');
  }
  if (sub === 'grep' && rest.some((arg) => /^-O/.test(arg)))
    refuse('`git grep -O` opens files in a program; it is not allowed');
  if (sub === 'config') checkConfig(rest);
}

function checkConfig(rest: readonly string[]): void {
  // Renaming a harmless section to `alias` or `filter` would write exec-capable keys without naming one.
  if (rest.some((arg) => arg === '--rename-section' || arg === 'rename-section')) {
    refuse('`git config --rename-section` can turn harmless settings into aliases or drivers; it is not allowed');
  }
  if (rest.some((arg) => CONFIG_READS.has(arg))) return;
  const key = rest.find((arg) => !arg.startsWith('-') && isExecKey(arg));
  if (key) refuse(`\`git config ${key}\` makes git run a program (or changes where it finds one); it is not allowed`);
}

/** The value of a global option given as `--opt=value`, `--opt value`, or `-Cdir`. */
function optionValue(arg: string, next: string | undefined): { option?: string; value: string } {
  for (const option of ['--git-dir', '--work-tree']) {
    if (arg === option) return { option, value: next ?? '' };
    if (arg.startsWith(`${option}=`)) return { option, value: arg.slice(option.length + 1) };
  }
  if (arg === '-C') return { option: '-C', value: next ?? '' };
  if (arg.startsWith('-C') && arg.length > 2) return { option: '-C', value: arg.slice(2) };
  return { value: '' };
}

function checkC(dir: string, root: string): void {
  if (dir === '') refuse('`git -C` needs a directory');
  if (gitFileReason(dir)) refuse(`\`git -C ${dir}\` points into a .git directory; point it at a work tree`);
  inside(`git -C ${dir}`, root, dir);
}

// A git directory is where git reads config and hooks from: only the one git made in the workspace.
function checkGitDir(dir: string, root: string): void {
  if (inside(`git --git-dir ${dir}`, root, dir) !== path.join(root, '.git')) {
    refuse(
      `\`git --git-dir ${dir}\` may only name the workspace's own .git; git would read config and hooks from ${dir}`,
    );
  }
}

function checkWorkTree(dir: string, root: string): void {
  if (inside(`git --work-tree ${dir}`, root, dir) !== root) {
    refuse(
      `\`git --work-tree ${dir}\` may only name the workspace itself; use \`git -C <dir>\` for a repository inside it`,
    );
  }
}

function inside(form: string, root: string, dir: string): string {
  try {
    return resolveInWorkspace(root, dir);
  } catch (error) {
    if (error instanceof RefusedBeforeEffect) refuse(`\`${form}\` points outside the workspace: ${error.reason}`);
    throw error;
  }
}

function refuse(reason: string): never {
  throw new RefusedBeforeEffect(reason);
}
