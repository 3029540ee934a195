import path from 'node:path';
import { z } from 'zod';
import { defineTool, type ToolContext } from '../define.ts';
import { findBinary } from '../shell/binaries.ts';
import { shellEnv } from '../shell/env.ts';
import { hiddenDirs, launchCommand } from '../shell/launch.ts';
import { runArgv, type RunResult } from '../shell/run.ts';
import { SandboxProbes, type SandboxMode } from '../shell/sandbox.ts';
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
  /** `tools.env_allow`: environment names passed to commands beyond PATH, HOME, LANG, LC_*, TZ, TERM, TMPDIR. */
  envAllow?: readonly string[];
  /** Directories sandboxed commands cannot read (Kazma's data directory); the caller's HOME is always hidden. */
  hide?: readonly string[];
  /** Whether bubblewrap can run here, probed once per binary (shared with the start log). Default: the tool's own. */
  probes?: SandboxProbes;
}

/**
 * `shell` (danger, effects): runs ONE allow-listed program in the workspace, without a shell, with an
 * allowlisted environment, inside a bubblewrap sandbox (read-only root, the workspace the only writable
 * place, private /tmp and HOME, no network, own PID namespace, dies with Kazma). The policy
 * ({@link checkShellCommand}) and the sandbox check run in `precheck`, so a refused command never
 * reaches an approval card, and again in `run`.
 */
export function shellTool(options: ShellToolOptions = {}) {
  const allow = options.allow ?? DEFAULT_SHELL_ALLOW;
  const timeoutMs = options.timeoutMs ?? 30_000;
  const maxOutputBytes = options.maxOutputBytes ?? 64 * 1024;
  const sandbox = options.sandbox ?? 'bwrap';
  const cpuSeconds = options.cpuSeconds ?? 60;
  const probes = options.probes ?? new SandboxProbes();
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
      const bwrap = sandbox === 'bwrap' ? await probes.require(ctx.env.PATH, root) : undefined;
      const prlimit = findBinary('prlimit', ctx.env.PATH, root);
      const hide = hiddenDirs([ctx.env.HOME, ...(options.hide ?? [])], root, program);
      const launch = launchCommand({
        program,
        args,
        given,
        ...(bwrap && { sandbox: { bwrap, plan: { workspace: root, network: options.network ?? false, hide } } }),
        ...(prlimit && { cpu: { prlimit, seconds: cpuSeconds } }),
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
