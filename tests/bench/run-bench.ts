// Runs a bench script as a user would (`node --import tsx bench/<name>.ts …`), with small sizes: the
// benches print the performance figures the README quotes, and a bench that no longer runs (a renamed
// config key, a changed access rule) would go unnoticed until someone measures again. What is checked is
// that it finishes and prints each figure, never the figure's value (shared machines are noisy).
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { ROOT } from '../agent/helpers/spawn.ts';

/** The bench's stdout; rejects with its exit code and stderr when it fails. */
export async function runBench(script: string, args: string[]): Promise<string> {
  try {
    const { stdout } = await promisify(execFile)(process.execPath, ['--import', 'tsx', script, ...args], {
      cwd: ROOT, maxBuffer: 64 * 1024 * 1024, timeout: 270_000, killSignal: 'SIGKILL',
    });
    return stdout;
  } catch (error) {
    const failed = error as { code?: number | string; signal?: string; stdout?: string; stderr?: string };
    throw new Error(`${script} ${args.join(' ')} failed (${failed.signal ?? `exit ${failed.code}`})\nstdout:\n${failed.stdout ?? ''}\nstderr:\n${(failed.stderr ?? '').slice(-4000)}`);
  }
}

/** A printed figure: a number, with decimals or not. */
export const N = String.raw`\d+(?:\.\d+)?`;
