import { realpathSync, statSync } from 'node:fs';
import path from 'node:path';
import { isInside } from '../workspace.ts';
import { bwrapArgs, type SandboxPlan } from './sandbox.ts';

/** Options for {@link launchCommand}. */
export interface LaunchOptions {
  /** The program's real path (what the policy approved). */
  program: string;
  args: readonly string[];
  /** The name the model typed; shown to the program as argv[0] when nothing wraps it. */
  given: string;
  /** Run inside bubblewrap (`bwrap` is its binary); absent when `tools.shell.sandbox: off`. */
  sandbox?: { bwrap: string; plan: SandboxPlan };
  /** What the command may take, set with util-linux `prlimit` (its binary); see {@link CommandLimits}. */
  limits?: CommandLimits & { prlimit: string };
}

/** The resource limits one command runs under, everything it starts included. */
export interface CommandLimits {
  /** RLIMIT_CPU: SIGXCPU at this many seconds of CPU time, SIGKILL a second later (`tools.shell.cpu_seconds`). */
  cpuSeconds: number;
  /** RLIMIT_AS: address space per process, so an allocation past it fails (`tools.shell.memory`). */
  memoryBytes: number;
  /**
   * RLIMIT_NPROC: processes of the user (`tools.shell.max_processes`). The kernel does not apply it to
   * root (real uid 0; a user namespace maps the sandbox's uid back to it), so when Kazma runs as root the
   * sandbox drops to an unprivileged user ({@link SandboxPlan}'s `user`) for the limit to hold.
   */
  maxProcesses: number;
}

/** What to spawn: the outermost program and its arguments. */
export interface Launch {
  file: string;
  args: string[];
  argv0?: string;
}

/**
 * Wraps the command: `prlimit --cpu=N:N+1 --as=BYTES --nproc=N -- bwrap <sandbox> -- program args`.
 * prlimit sets the limits on itself and execs, so bwrap keeps Kazma as its parent (its --die-with-parent
 * watches Kazma) and everything in the sandbox inherits them.
 */
export function launchCommand(options: LaunchOptions): Launch {
  let file = options.program;
  let args = [...options.args];
  let argv0: string | undefined = options.given;
  if (options.sandbox) {
    args = bwrapArgs(options.sandbox.plan, [file, ...args]);
    file = options.sandbox.bwrap;
    argv0 = undefined;
  }
  if (options.limits) {
    const { prlimit, cpuSeconds, memoryBytes, maxProcesses } = options.limits;
    const limits = [`--cpu=${cpuSeconds}:${cpuSeconds + 1}`, `--as=${memoryBytes}`, `--nproc=${maxProcesses}`];
    args = [...limits, '--', file, ...args];
    file = prlimit;
    argv0 = undefined;
  }
  return argv0 === undefined ? { file, args } : { file, args, argv0 };
}

/**
 * The directories to mask in the sandbox, from candidates such as the parent's HOME and Kazma's data
 * directory: existing directories only (bwrap cannot mount on what is missing on a read-only root),
 * never `/`, never one inside the workspace (the workspace bind would show it again anyway), and never
 * one holding the program itself (a git in ~/.local/bin must stay reachable).
 */
export function hiddenDirs(candidates: ReadonlyArray<string | undefined>, root: string, program: string): string[] {
  const hidden = new Set<string>();
  for (const candidate of candidates) {
    if (!candidate || !path.isAbsolute(candidate)) continue;
    let real: string;
    try {
      real = realpathSync(candidate);
      if (!statSync(real).isDirectory()) continue;
    } catch {
      continue;
    }
    if (real === '/' || isInside(root, real) || isInside(real, program)) continue;
    hidden.add(real);
  }
  return [...hidden];
}
