import path from 'node:path';
import { z } from 'zod';
import { defineTool, type ToolContext } from '../define.ts';
import { findBinary } from '../shell/binaries.ts';
import { shellEnv } from '../shell/env.ts';
import { handOver } from '../shell/hand-over.ts';
import { hiddenDirs, launchCommand } from '../shell/launch.ts';
import { runArgv, type RunResult } from '../shell/run.ts';
import { DEFAULT_RUN_AS, runningAsRoot, SandboxProbes, type RunAs, type SandboxMode } from '../shell/sandbox.ts';
import { checkShellCommand, DEFAULT_SHELL_ALLOW } from '../shell-policy.ts';
import { workspaceRoot } from '../workspace.ts';

/** Options for {@link shellTool}; each has a documented default. */
export interface ShellToolOptions {
  /** Program names that may run. Default {@link DEFAULT_SHELL_ALLOW}. */
  allow?: readonly string[];
  /** Kill the command after this long. Default 30 000 ms. */
  timeoutMs?: number;
  /** Output kept for the model. Default 64 KiB. */
  maxOutputBytes?: number;
  /** `tools.shell.sandbox`. Default `bwrap`: where bubblewrap cannot run, the tool refuses every command. */
  sandbox?: SandboxMode;
  /** `tools.shell.network`: sandboxed commands keep the network. Default false. */
  network?: boolean;
  /** `tools.shell.cpu_seconds`: CPU time per command, enforced when util-linux `prlimit` is on PATH. Default 60. */
  cpuSeconds?: number;
  /** `tools.shell.memory` in bytes: address space per process of a command (RLIMIT_AS). Default 512 MB. */
  memoryBytes?: number;
  /** `tools.shell.max_processes`: processes a command may run at once (RLIMIT_NPROC). Default 64. */
  maxProcesses?: number;
  /**
   * `tools.shell.run_as`: the user contained commands run as when Kazma runs as root, so the process limit
   * holds (the kernel does not apply it to root); the workspace is handed to that user. Default nobody (65534).
   */
  runAs?: RunAs;
  /** Whether Kazma runs as root (then `runAs` applies). Default: this process's uid is 0. */
  asRoot?: boolean;
  /** `tools.env_allow`: environment names passed to commands beyond PATH, HOME, LANG, LC_*, TZ, TERM, TMPDIR. */
  envAllow?: readonly string[];
  /** Directories sandboxed commands cannot read (Kazma's data directory); the caller's HOME is always hidden. */
  hide?: readonly string[];
  /** Whether bubblewrap can run here, probed once per binary (shared with the start log). Default: the tool's own. */
  probes?: SandboxProbes;
}

/**
 * `shell` (danger, effects): runs ONE allow-listed program in the workspace, without a shell, with an
 * allowlisted environment, inside a bubblewrap sandbox (of the host only /usr and a few /etc files, the
 * workspace the only writable place, private /tmp and HOME, no network, own PID namespace, dies with Kazma;
 * as an unprivileged user when Kazma runs as root, so the process limit holds). The policy
 * ({@link checkShellCommand}) and the sandbox check run in `precheck`, so a refused command never
 * reaches an approval card, and again in `run`.
 */
export function shellTool(options: ShellToolOptions = {}) {
  const allow = options.allow ?? DEFAULT_SHELL_ALLOW;
  const timeoutMs = options.timeoutMs ?? 30_000;
  const maxOutputBytes = options.maxOutputBytes ?? 64 * 1024;
  const sandbox = options.sandbox ?? 'bwrap';
  const cpuSeconds = options.cpuSeconds ?? 60;
  const memoryBytes = options.memoryBytes ?? DEFAULT_SHELL_MEMORY;
  const maxProcesses = options.maxProcesses ?? 64;
  const probes = options.probes ?? new SandboxProbes();
  const runAs = (options.asRoot ?? runningAsRoot()) ? (options.runAs ?? DEFAULT_RUN_AS) : undefined;
  const check = (command: string, ctx: ToolContext) =>
    checkShellCommand(command, { workspace: ctx.workspace, allow, pathEnv: ctx.env.PATH });
  return defineTool({
    name: 'shell',
    description:
      `Run one program in the workspace, e.g. "git status" or "grep -rn TODO src". No shell: no pipes, ` +
      `redirections, ;, &&, $VARS, globs or subshells. Allowed programs: ${allow.join(', ')}. Paths must stay ` +
      `inside the workspace and may not contain "..". Output is capped at ${maxOutputBytes} bytes; the command is ` +
      `killed after ${timeoutMs / 1000} s.`,
    input: z.object({ command: z.string().min(1).describe('One command line, e.g. "ls -la src"') }),
    tier: 'danger',
    effects: true,
    // Not fenced for now: the issue names web, MCP reads and read_file; a command's output is mostly
    // Kazma's own workspace. Revisit together with the shell tests that read output as it is.
    outside: false,
    async precheck({ command }, ctx) {
      check(command, ctx);
      if (sandbox === 'bwrap') await probes.require(ctx.env.PATH, workspaceRoot(ctx.workspace));
    },
    async run({ command }, ctx) {
      const [given = '', ...args] = check(command, ctx);
      const root = workspaceRoot(ctx.workspace);
      const program = findBinary(path.basename(given), ctx.env.PATH, root);
      if (!program) throw new Error(`"${given}" is allowed but was not found on PATH on this machine`);
      const contained = sandbox === 'bwrap' ? await probes.resolve(ctx.env.PATH, root, runAs) : undefined;
      const prlimit = findBinary('prlimit', ctx.env.PATH, root);
      const hide = hiddenDirs([ctx.env.HOME, ...(options.hide ?? [])], root, program);
      const user = contained?.user;
      // The command runs as another user: it may write the workspace, whatever Kazma or the operator put there.
      if (user) handOver(root, user);
      const plan = { workspace: root, network: options.network ?? false, hide, ...(user && { user }) };
      const bwrap = contained?.bwrap;
      const launch = launchCommand({
        program,
        args,
        given,
        ...(bwrap && { sandbox: { bwrap, plan } }),
        ...(prlimit && { limits: { prlimit, cpuSeconds, memoryBytes, maxProcesses } }),
      });
      const result = await runArgv(launch.file, launch.args, {
        cwd: root,
        env: shellEnv(ctx.env, { root, allow: options.envAllow, sandboxed: bwrap !== undefined }),
        timeoutMs,
        maxOutputBytes,
        signal: ctx.signal,
        ...(launch.argv0 !== undefined && { argv0: launch.argv0 }),
      });
      return formatResult(result, { timeoutMs, maxOutputBytes, cpuSeconds });
    },
  });
}

/** `tools.shell.memory`'s default: 512 MB of address space per process. */
const DEFAULT_SHELL_MEMORY = 512 * 1024 * 1024;

// SIGXCPU is signal 24; bubblewrap reports a child killed by a signal as 128 + its number.
const CPU_LIMIT_EXIT = 128 + 24;

function formatResult(
  result: RunResult,
  limits: { timeoutMs: number; maxOutputBytes: number; cpuSeconds: number },
): string {
  const parts: string[] = [];
  if (result.stdout) parts.push(result.stdout.replace(/\n$/, ''));
  if (result.stderr) parts.push(`[stderr]\n${result.stderr.replace(/\n$/, '')}`);
  if (result.truncated) parts.push(`[output truncated at ${limits.maxOutputBytes} bytes]`);
  if (result.timedOut) parts.push(`[killed after ${limits.timeoutMs / 1000} s timeout]`);
  else if (result.aborted) parts.push('[cancelled]');
  else if (result.signal === 'SIGXCPU' || result.code === CPU_LIMIT_EXIT)
    parts.push(`[stopped at the CPU time limit of ${limits.cpuSeconds} s]`);
  else if (result.code !== 0) parts.push(`[exit code ${result.code ?? result.signal ?? 'unknown'}]`);
  return parts.length > 0 ? parts.join('\n') : '(no output)';
}
