import { accessSync, constants, realpathSync, statSync } from 'node:fs';
import path from 'node:path';
import { RefusedBeforeEffect } from '../../effects/index.ts';
import { isInside } from '../workspace.ts';

/** Programs the shell tool runs when `tools.shell.allow` is not set. */
export const DEFAULT_SHELL_ALLOW: readonly string[] = Object.freeze([
  'ls',
  'cat',
  'head',
  'tail',
  'wc',
  'grep',
  'find',
  'echo',
  'pwd',
  'date',
  'git',
  'touch',
  'mkdir',
  'cp',
  'mv',
  'rm',
  'sort',
  'uniq',
  'diff',
  'sleep',
  'true',
  'false',
]);

/**
 * Programs whose job is to run other programs or code (shells, interpreters, wrappers, editors and
 * pagers with shell escapes). Allowing one would allow everything, so they are refused even when
 * the allow list names them.
 */
const EXECUTORS = new Set([
  'sh',
  'bash',
  'zsh',
  'dash',
  'ksh',
  'mksh',
  'csh',
  'tcsh',
  'fish',
  'ash',
  'busybox',
  'toybox',
  'node',
  'nodejs',
  'deno',
  'bun',
  'npx',
  'npm',
  'pnpm',
  'yarn',
  'tsx',
  'ts-node',
  'perl',
  'ruby',
  'irb',
  'php',
  'lua',
  'luajit',
  'tclsh',
  'wish',
  'expect',
  'rscript',
  'julia',
  'osascript',
  'awk',
  'gawk',
  'mawk',
  'nawk',
  'sed',
  'make',
  'xargs',
  'parallel',
  'env',
  'exec',
  'command',
  'builtin',
  'eval',
  'sudo',
  'su',
  'doas',
  'runuser',
  'pkexec',
  'nohup',
  'timeout',
  'nice',
  'ionice',
  'time',
  'watch',
  'setsid',
  'stdbuf',
  'unbuffer',
  'script',
  'chroot',
  'nsenter',
  'unshare',
  'taskset',
  'chrt',
  'flock',
  'strace',
  'ltrace',
  'gdb',
  'lldb',
  'ssh',
  'tmux',
  'screen',
  'at',
  'batch',
  'crontab',
  'systemd-run',
  'vi',
  'vim',
  'nvim',
  'emacs',
  'less',
  'more',
  'man',
]);
const INTERPRETER_FAMILY = /^(python|pypy|perl|ruby|php|lua|node)[0-9.]*$/;

/** Why `name` must never run, or undefined when it is not an executor. */
export function executorReason(name: string): string | undefined {
  const lower = name.toLowerCase();
  if (!EXECUTORS.has(lower) && !INTERPRETER_FAMILY.test(lower)) return undefined;
  return (
    `"${name}" runs other programs or code (shell, interpreter or wrapper), so it is never allowed; call the ` +
    `program you need directly`
  );
}

/**
 * Finds `name` on `pathEnv` and returns its real path. Relative PATH entries and entries inside the
 * workspace are skipped: the child's cwd is the workspace, and a program the model wrote there must
 * not shadow the system one.
 */
export function findBinary(name: string, pathEnv: string | undefined, workspaceReal: string): string | undefined {
  for (const dir of (pathEnv ?? '').split(path.delimiter)) {
    if (!path.isAbsolute(dir)) continue;
    const candidate = path.join(dir, name);
    try {
      accessSync(candidate, constants.X_OK);
      if (!statSync(candidate).isFile()) continue;
      const real = realpathSync(candidate);
      if (!isInside(workspaceReal, real)) return real;
    } catch {
      // not here; keep looking
    }
  }
  return undefined;
}

/**
 * Accepts a program given as a path (`/usr/bin/ls`) only when it is the same file PATH finds for
 * its name, so `./ls` or a copy of an allowed name elsewhere cannot slip through.
 */
export function checkBinaryPath(given: string, pathEnv: string | undefined, workspaceReal: string): void {
  const name = path.basename(given);
  const expected = findBinary(name, pathEnv, workspaceReal);
  let real: string | undefined;
  try {
    real = realpathSync(path.resolve(workspaceReal, given));
  } catch {
    real = undefined;
  }
  if (expected === undefined || real !== expected) {
    throw new RefusedBeforeEffect(
      `"${given}" is not the system "${name}" found on PATH${expected ? ` (${expected})` : ''}; call it by ` +
        `name: ${name}`,
    );
  }
}
