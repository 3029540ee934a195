import path from 'node:path';
import { RefusedBeforeEffect } from '../effects/index.ts';
import { checkBinaryPath, DEFAULT_SHELL_ALLOW, executorReason } from './shell/binaries.ts';
import { checkCatastrophic } from './shell/catastrophic.ts';
import { checkGit } from './shell/git.ts';
import { parseCommand } from './shell/parse.ts';
import { checkPathArgs } from './shell/paths.ts';
import { checkProgramArgs } from './shell/rules.ts';
import { workspaceRoot } from './workspace.ts';

export { DEFAULT_SHELL_ALLOW } from './shell/binaries.ts';

/** Options for {@link checkShellCommand}. */
export interface ShellPolicyOptions {
  /** Absolute workspace directory; the command's cwd and the boundary for every path argument. */
  workspace: string;
  /** Program names that may run. Default {@link DEFAULT_SHELL_ALLOW}. Executors are refused even if listed. */
  allow?: readonly string[];
  /** PATH used to verify a program given as a path (`/usr/bin/ls`); without it such calls are refused. */
  pathEnv?: string;
}

/**
 * Decides whether a model-written command line may run, before anyone is asked to approve it.
 * Returns the argv to spawn (without a shell) or throws {@link RefusedBeforeEffect} with a reason
 * the model can act on. Checks, in order: shell syntax, executors (shells, interpreters, `env`,
 * `xargs`, `sudo`, ...), catastrophic commands, the allow list, a program given as a path,
 * program-specific options (`find -exec`, `git -c`, `git --git-dir`, exec-capable `git config` keys, ...),
 * and every path argument (inside the workspace on the real file system, no `..`, and for programs that
 * write, not git's own files). It is the first fence; the sandbox contains what it lets through.
 *
 * @example
 * checkShellCommand('grep -rn TODO src', { workspace: '/srv/ws' }) // ['grep', '-rn', 'TODO', 'src']
 * checkShellCommand('cat /etc/passwd', { workspace: '/srv/ws' })   // throws: outside the workspace
 */
export function checkShellCommand(command: string, options: ShellPolicyOptions): string[] {
  const argv = parseCommand(command);
  const [given = '', ...args] = argv;
  const name = path.basename(given);
  const root = workspaceRoot(options.workspace);

  const executor = executorReason(name);
  if (executor) throw new RefusedBeforeEffect(executor);
  checkCatastrophic(name, args, root);
  const allow = options.allow ?? DEFAULT_SHELL_ALLOW;
  if (!allow.includes(name)) {
    throw new RefusedBeforeEffect(
      `"${name}" is not in the shell allow list (${allow.join(', ')}); use one of those, or ask the operator to add ` +
        `it to tools.shell.allow`,
    );
  }
  if (given.includes('/')) checkBinaryPath(given, options.pathEnv, root);
  checkProgramArgs(name, args);
  if (name === 'git') checkGit(args, root);
  checkPathArgs(name, args, root);
  return argv;
}
