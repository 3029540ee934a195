import path from 'node:path';
import { z } from 'zod';
import { scrubEnv } from '../../vault/child-env.ts';
import { defineTool } from '../define.ts';
import { findBinary } from '../shell/binaries.ts';
import { runArgv, type RunResult } from '../shell/run.ts';
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
}

/**
 * `shell` (danger, effects): runs ONE allow-listed program in the workspace, without a shell, with a
 * scrubbed environment. The policy ({@link checkShellCommand}) runs in `precheck`, so a refused
 * command never reaches an approval card, and again in `run`.
 */
export function shellTool(options: ShellToolOptions = {}) {
  const allow = options.allow ?? DEFAULT_SHELL_ALLOW;
  const timeoutMs = options.timeoutMs ?? 30_000;
  const maxOutputBytes = options.maxOutputBytes ?? 64 * 1024;
  return defineTool({
    name: 'shell',
    description:
      `Run one program in the workspace, e.g. "git status" or "grep -rn TODO src". No shell: no pipes, ` +
      `redirections, ;, &&, $VARS, globs or subshells. Allowed programs: ${allow.join(', ')}. Paths must stay ` +
      `inside the workspace. Output is capped at ${maxOutputBytes} bytes; the command is killed after ${timeoutMs / 1000} s.`,
    input: z.object({ command: z.string().min(1).describe('One command line, e.g. "ls -la src"') }),
    tier: 'danger',
    effects: true,
    precheck({ command }, ctx) {
      checkShellCommand(command, { workspace: ctx.workspace, allow, pathEnv: ctx.env.PATH });
    },
    async run({ command }, ctx) {
      const [given = '', ...args] = checkShellCommand(command, { workspace: ctx.workspace, allow, pathEnv: ctx.env.PATH });
      const root = workspaceRoot(ctx.workspace);
      const file = findBinary(path.basename(given), ctx.env.PATH, root);
      if (!file) throw new Error(`"${given}" is allowed but was not found on PATH on this machine`);
      const result = await runArgv(file, args, {
        cwd: root, env: scrubEnv(ctx.env), timeoutMs, maxOutputBytes, signal: ctx.signal, argv0: given,
      });
      return formatResult(result, { timeoutMs, maxOutputBytes });
    },
  });
}

function formatResult(result: RunResult, limits: { timeoutMs: number; maxOutputBytes: number }): string {
  const parts: string[] = [];
  if (result.stdout) parts.push(result.stdout.replace(/\n$/, ''));
  if (result.stderr) parts.push(`[stderr]\n${result.stderr.replace(/\n$/, '')}`);
  if (result.truncated) parts.push(`[output truncated at ${limits.maxOutputBytes} bytes]`);
  if (result.timedOut) parts.push(`[killed after ${limits.timeoutMs / 1000} s timeout]`);
  else if (result.aborted) parts.push('[cancelled]');
  else if (result.code !== 0) parts.push(`[exit code ${result.code ?? result.signal ?? 'unknown'}]`);
  return parts.length > 0 ? parts.join('\n') : '(no output)';
}
