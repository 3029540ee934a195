import { spawn } from 'node:child_process';

/** Options for {@link runArgv}. */
export interface RunArgvOptions {
  cwd: string;
  /** The child's whole environment (already scrubbed by the caller). */
  env: Record<string, string>;
  /** Kill the child (and its process group) after this long. */
  timeoutMs: number;
  /** Keep at most this many bytes of stdout+stderr; the rest is read and dropped. */
  maxOutputBytes: number;
  signal?: AbortSignal;
  /** Shown to the program as argv[0] (the name the model typed rather than the resolved path). */
  argv0?: string;
}

/** What a finished child left behind. */
export interface RunResult {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
  truncated: boolean;
  timedOut: boolean;
  aborted: boolean;
}

/**
 * Runs `file args` without a shell and collects capped output. Rejects only when the program
 * cannot start; a non-zero exit, a timeout or an abort is reported in the result.
 */
export function runArgv(file: string, args: readonly string[], options: RunArgvOptions): Promise<RunResult> {
  return new Promise((resolve, reject) => {
    // detached: the child leads its own process group, so a timeout kills what it started too (git spawns helpers).
    const child = spawn(file, args, {
      cwd: options.cwd,
      env: options.env,
      shell: false,
      detached: true,
      stdio: ['ignore', 'pipe', 'pipe'],
      argv0: options.argv0,
    });
    const chunks = { stdout: [] as Buffer[], stderr: [] as Buffer[] };
    let kept = 0;
    let truncated = false;
    let timedOut = false;
    let aborted = false;
    const collect =
      (stream: 'stdout' | 'stderr') =>
      (chunk: Buffer): void => {
        const room = options.maxOutputBytes - kept;
        if (chunk.length > room) truncated = true;
        if (room <= 0) return;
        const part = chunk.subarray(0, room);
        chunks[stream].push(part);
        kept += part.length;
      };
    child.stdout.on('data', collect('stdout'));
    child.stderr.on('data', collect('stderr'));

    const killGroup = (): void => {
      try {
        if (child.pid !== undefined) process.kill(-child.pid, 'SIGKILL');
      } catch {
        child.kill('SIGKILL'); // the group is already gone; make sure the child is
      }
    };
    const timer = setTimeout(() => {
      timedOut = true;
      killGroup();
    }, options.timeoutMs);
    const onAbort = (): void => {
      aborted = true;
      killGroup();
    };
    if (options.signal?.aborted) onAbort();
    options.signal?.addEventListener('abort', onAbort, { once: true });
    const cleanup = (): void => {
      clearTimeout(timer);
      options.signal?.removeEventListener('abort', onAbort);
    };

    child.on('error', (error) => {
      cleanup();
      reject(error);
    });
    child.on('close', (code, signal) => {
      cleanup();
      resolve({
        code,
        signal,
        truncated,
        timedOut,
        aborted,
        stdout: Buffer.concat(chunks.stdout).toString('utf8'),
        stderr: Buffer.concat(chunks.stderr).toString('utf8'),
      });
    });
  });
}
