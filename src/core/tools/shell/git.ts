import { RefusedBeforeEffect } from '../../effects/refused.ts';
import { resolveInWorkspace } from '../workspace.ts';

// Global options that take the next argument as their value (`git -C dir status`).
const GLOBAL_WITH_VALUE = new Set(['-C', '-c', '--git-dir', '--work-tree', '--namespace', '--config-env', '--exec-path']);
// Config keys whose value git runs as a program (or that pull in another config that could).
const EXEC_KEYS =
  /^(core\.(fsmonitor|pager|editor|sshcommand|hookspath|gitproxy|askpass)|sequence\.editor|diff\.external|alias\..*|.*\.textconv|filter\..*|merge\..*\.driver|credential\..*helper|gpg(\..*)?\.program|uploadpack\..*hook|pager\..*|web\.browser|browser\..*\.(cmd|path)|(diff|merge)tool\..*|include\.path|includeif\..*|ssh\.variant|protocol\..*allow)$/;
// Subcommands that exist to run arbitrary commands.
const EXEC_SUBCOMMANDS = new Set(['filter-branch', 'difftool', 'mergetool', 'instaweb', 'web--browse', 'daemon', 'shell', 'upload-pack', 'receive-pack']);

/**
 * git can run programs in many ways besides its own subcommands: per-call config (`-c`,
 * `--config-env`), config it is told to write (`core.fsmonitor`, aliases starting with `!`),
 * transports (`--upload-pack`, `ext::`) and subcommands such as `bisect run`. Each is refused here
 * with a reason; `-C` must point inside the workspace.
 */
export function checkGit(args: readonly string[], root: string): void {
  for (const arg of args) {
    if (/core\.fsmonitor/i.test(arg)) refuse('`core.fsmonitor` makes git run a program on every command; it is never allowed');
    if (/^--(upload-pack|receive-pack|exec)(=|$)/.test(arg)) refuse(`\`git ${arg.split('=')[0]}\` names a program for git to run`);
    if (/^ext::/i.test(arg)) refuse('the `ext::` transport runs a command; use an https or ssh URL');
    // A template directory is copied into .git, hooks included.
    if (/^--template(=|$)/.test(arg)) refuse('`git --template` copies hooks into the repository; it is not allowed');
  }
  let index = 0;
  for (; index < args.length; index++) {
    const arg = args[index] ?? '';
    if (!arg.startsWith('-')) break;
    if (arg === '-c' || (arg.startsWith('-c') && !arg.startsWith('--'))) {
      refuse('`git -c` sets configuration for one call, which can make git run programs; it is not allowed');
    }
    if (arg.startsWith('--config-env')) refuse('`git --config-env` sets configuration from the environment; it is not allowed');
    if (arg.startsWith('--exec-path')) refuse('`git --exec-path` changes where git finds its programs; it is not allowed');
    if (arg === '-C' || (arg.startsWith('-C') && arg.length > 2)) {
      const dir = arg === '-C' ? args[index + 1] : arg.slice(2);
      if (dir === undefined) refuse('`git -C` needs a directory');
      checkInside(`git -C ${dir}`, root, dir);
    }
    if (GLOBAL_WITH_VALUE.has(arg)) index++;
  }
  const sub = args[index];
  const rest = args.slice(index + 1);
  if (sub === undefined) return;
  if (EXEC_SUBCOMMANDS.has(sub)) refuse(`\`git ${sub}\` runs other programs; it is not allowed`);
  if (sub === 'bisect' && rest[0] === 'run') refuse('`git bisect run` runs a command; it is not allowed');
  if (sub === 'submodule' && rest.includes('foreach')) refuse('`git submodule foreach` runs a command; it is not allowed');
  if (sub === 'rebase' && rest.some((arg) => arg === '-x' || /^-[^-]*x/.test(arg))) {
    refuse('`git rebase -x` runs a command after each commit; it is not allowed');
  }
  if ((sub === 'clone' || sub === 'fetch' || sub === 'pull' || sub === 'ls-remote') && rest.includes('-u')) {
    refuse(`\`git ${sub} -u\` names a program for git to run (--upload-pack)`);
  }
  if (sub === 'clone' && rest.some((arg) => arg === '-c' || arg.startsWith('--config'))) {
    refuse('`git clone -c/--config` writes configuration that can make git run programs; it is not allowed');
  }
  if (sub === 'grep' && rest.some((arg) => /^-O/.test(arg))) refuse('`git grep -O` opens files in a program; it is not allowed');
  if (sub === 'config') {
    const key = rest.find((arg) => EXEC_KEYS.test(arg.toLowerCase()));
    if (key) refuse(`\`git config ${key}\` makes git run a program; it is not allowed`);
  }
}

function checkInside(form: string, root: string, dir: string): void {
  try {
    resolveInWorkspace(root, dir);
  } catch (error) {
    if (error instanceof RefusedBeforeEffect) refuse(`\`${form}\` points outside the workspace: ${error.reason}`);
    throw error;
  }
}

function refuse(reason: string): never {
  throw new RefusedBeforeEffect(reason);
}
