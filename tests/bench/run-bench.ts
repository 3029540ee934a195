// Runs a bench script as a user would (`node --import tsx bench/<name>.ts …`), with small sizes: the
// benches print the performance figures docs/performance.md quotes, and a bench that no longer runs (a renamed
// config key, a changed access rule) would go unnoticed until someone measures again. What is checked is
// that it finishes and prints each figure, never the figure's value (shared machines are noisy).
import { spawn } from 'node:child_process';
import { REPO_ROOT } from '../helpers/repo-root.ts';

/** Longer than any bench takes with the sizes the tests give, on a loaded 2-core machine. */
const BENCH_TIMEOUT_MS = 270_000;

/** Thrown when a bench exits with an error, or is stopped for taking too long. */
export class BenchFailedError extends Error {}

/**
 * The bench's stdout, once it exits 0. The bench runs in a process group of its own: one that overruns is
 * killed with every process it started (the Kazma processes it measures), so none outlives the test.
 */
export function runBench(script: string, args: string[]): Promise<string> {
  const child = spawn(process.execPath, ['--import', 'tsx', script, ...args], {
    cwd: REPO_ROOT,
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk));
  let overran = false;
  const timer = setTimeout(() => {
    overran = true;
    process.kill(-child.pid!, 'SIGKILL');
  }, BENCH_TIMEOUT_MS);
  return new Promise((resolve, reject) => {
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      if (code === 0) return resolve(stdout);
      const why = overran
        ? `still running after ${BENCH_TIMEOUT_MS / 1000} s`
        : signal
          ? `killed by ${signal}`
          : `exit ${code}`;
      reject(
        new BenchFailedError(
          `${script} ${args.join(' ')} failed (${why})\nstdout:\n${stdout}\nstderr:\n${stderr.slice(-4000)}`,
        ),
      );
    });
  });
}

/** A printed figure: a number, with decimals or not. */
export const N = String.raw`\d+(?:\.\d+)?`;
