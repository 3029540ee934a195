import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { distPaths } from '../../bin/dist-state.js';
import { eventually } from './eventually.ts';
import { REPO_ROOT } from './repo-root.ts';

/**
 * The compiled CLI `npm start` runs, which global-setup built once for this run; not bin/kazma.js, which
 * runs the source through tsx when dist/ is stale (a file saved during the run), so a test could pass on
 * code users never run.
 */
export const KAZMA_BIN = distPaths().cli;

/** A temp directory holding a kazma.yaml with the given text. */
export function writeConfig(
  yaml: string,
  dir = mkdtempSync(join(tmpdir(), 'kazma-test-')),
): { dir: string; path: string } {
  const path = join(dir, 'kazma.yaml');
  writeFileSync(path, yaml);
  return { dir, path };
}

/** A spawned `kazma` process, with its output collected and its JSON log lines parsed. */
export class KazmaProcess {
  readonly child: ChildProcess;
  stdout = '';
  stderr = '';
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;

  constructor(args: string[], options: { cwd?: string; env?: Record<string, string | undefined> } = {}) {
    this.child = spawn(process.execPath, [KAZMA_BIN, ...args], {
      cwd: options.cwd ?? REPO_ROOT,
      env: { ...process.env, ...options.env },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    this.child.stdout!.on('data', (chunk) => (this.stdout += chunk));
    this.child.stderr!.on('data', (chunk) => (this.stderr += chunk));
    this.exited = new Promise((r) => this.child.once('exit', (code, signal) => r({ code, signal })));
  }

  /** JSON log lines printed so far. */
  logs(): Array<Record<string, unknown>> {
    return this.stdout
      .split('\n')
      .filter((line) => line.startsWith('{'))
      .map((line) => JSON.parse(line) as Record<string, unknown>);
  }

  /** Waits for a log line matching `predicate`, failing early if the process exits. */
  async waitForLog(
    predicate: (line: Record<string, unknown>) => boolean,
    timeoutMs = 90_000,
  ): Promise<Record<string, unknown>> {
    let exited = false;
    void this.exited.then(() => (exited = true));
    const output = () => `\nstdout:\n${this.stdout}\nstderr:\n${this.stderr}`;
    const read = () => {
      const found = this.logs().find(predicate);
      if (!found && exited)
        throw new Error(`the process exited before a log line matching ${predicate.toString()}${output()}`);
      return found;
    };
    return eventually(
      read,
      (found) => found,
      () => `a log line matching ${predicate.toString()}${output()}`,
      { timeoutMs, intervalMs: 50 },
    );
  }

  /** The HTTP port from the `http listening` log line. */
  async port(): Promise<number> {
    const line = await this.waitForLog((l) => l.msg === 'http listening');
    return line.port as number;
  }

  kill(signal: NodeJS.Signals = 'SIGTERM'): void {
    if (this.child.exitCode === null) this.child.kill(signal);
  }
}

/** Runs a kazma subcommand to completion, with `input` piped to its stdin (closed at once when none). */
export async function runKazma(
  args: string[],
  options: { cwd?: string; env?: Record<string, string | undefined>; input?: string } = {},
) {
  const proc = new KazmaProcess(args, options);
  proc.child.stdin!.end(options.input);
  const { code } = await proc.exited;
  return { code, stdout: proc.stdout, stderr: proc.stderr };
}
