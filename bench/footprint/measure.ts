// One measured start of a child process: spawn → /readyz 200, spawn → the "kazma started" log line, what
// it costs idle (CPU and wake-ups over the end of the settle time), RSS once idle, and RSS after full GCs
// reported by a probe preloaded into the child.
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import { threadsOnCpu } from '../lib/threads-on-cpu.ts';

/** What one start measured; times in ms, memory in MB. */
export interface Sample {
  readyMs: number;
  startedMs: number;
  rssSettledMb: number;
  rssGcMb: number;
  heapUsedMb: number;
  /** Memory outside the JS heap that V8 knows of: PGlite's WASM memory and other ArrayBuffers. */
  externalMb: number;
  /** On-CPU ms a second, all threads, sitting idle (the last IDLE_WINDOW_MS of the settle time). */
  idleCpuMsPerS: number;
  /** Times a second its threads were put on a CPU, sitting idle: the timers and sockets that wake it. */
  idleWakesPerS: number;
}

/** The end of the settle time over which the idle figures are read (the start's own work is over by then). */
const IDLE_WINDOW_MS = 2_000;

export interface StartCommand {
  /** Arguments to node (the entry and its arguments). */
  args: string[];
  cwd: string;
  /** The port the child's HTTP server listens on (its /readyz is polled). */
  port: number;
  env?: Record<string, string>;
}

// Preloaded into the child with --import (and --expose-gc): on SIGUSR2, two full GCs (the second frees
// what finalizers released), then the child's memoryUsage on stderr. Nothing else in the child changes.
const PROBE = `data:text/javascript,${encodeURIComponent(
  `process.on('SIGUSR2', () => { globalThis.gc(); globalThis.gc(); process.stderr.write('FOOTPRINT ' + JSON.stringify(process.memoryUsage()) + '\\n'); });`,
)}`;
const MB = 1024 * 1024;
// Generous: on a heavily shared machine a fresh PGlite start (initdb in WASM) has taken minutes.
const TIMEOUT_MS = 600_000;

export async function measureStart({
  command,
  settleMs,
}: {
  command: StartCommand;
  settleMs: number;
}): Promise<Sample> {
  const startedAt = performance.now();
  const child = spawn(process.execPath, ['--expose-gc', '--import', PROBE, ...command.args], {
    cwd: command.cwd,
    env: { ...process.env, DATABASE_URL: '', REDIS_URL: '', PORT: String(command.port), ...command.env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk) => (stdout += chunk));
  child.stderr.on('data', (chunk) => (stderr += chunk));
  let exited = false;
  const exit = new Promise<void>((resolve) => child.once('exit', () => ((exited = true), resolve())));
  const until = async <T>(what: string, probe: () => Promise<T | undefined> | T | undefined): Promise<T> => {
    for (const deadline = Date.now() + TIMEOUT_MS; Date.now() < deadline; await sleep(10)) {
      const found = await probe();
      if (found !== undefined) return found;
      if (exited) break;
    }
    throw new Error(
      `${what}: not seen (${exited ? `the child exited, code ${child.exitCode}` : 'timed out'})\nstderr:\n${stderr.slice(-3000)}\nstdout:\n${stdout.slice(-3000)}`,
    );
  };
  try {
    const readyMs = await until('/readyz 200', async () =>
      (await readyz(command.port)) ? performance.now() - startedAt : undefined,
    );
    const startedMs = await until('"kazma started"', () =>
      /"msg":"kazma started"/.test(stdout) ? performance.now() - startedAt : undefined,
    );
    const idleMs = Math.min(IDLE_WINDOW_MS, settleMs / 2);
    await sleep(settleMs - idleMs);
    const idleFrom = threadsOnCpu(child.pid!);
    await sleep(idleMs);
    const idleTo = threadsOnCpu(child.pid!);
    const rssSettledMb = rssOf(child.pid!) / MB;
    child.kill('SIGUSR2');
    const usage = await until("the probe's report", () => {
      const line = /^FOOTPRINT (.*)$/m.exec(stderr)?.[1];
      return line ? (JSON.parse(line) as NodeJS.MemoryUsage) : undefined;
    });
    return {
      readyMs,
      startedMs,
      rssSettledMb,
      rssGcMb: usage.rss / MB,
      heapUsedMb: usage.heapUsed / MB,
      externalMb: usage.external / MB,
      idleCpuMsPerS: (idleTo.cpuMs - idleFrom.cpuMs) / (idleMs / 1000),
      idleWakesPerS: (idleTo.runs - idleFrom.runs) / (idleMs / 1000),
    };
  } finally {
    child.kill('SIGTERM');
    const killer = setTimeout(() => child.kill('SIGKILL'), 20_000);
    await exit;
    clearTimeout(killer);
  }
}

async function readyz(port: number): Promise<boolean> {
  try {
    return (await fetch(`http://127.0.0.1:${port}/readyz`, { signal: AbortSignal.timeout(2_000) })).status === 200;
  } catch {
    return false;
  }
}

/** Resident set size in bytes, from the kernel (the same figure `ps -o rss` shows). */
function rssOf(pid: number): number {
  const kb = /^VmRSS:\s+(\d+) kB$/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1];
  if (!kb) throw new Error(`no VmRSS for pid ${pid}`);
  return Number(kb) * 1024;
}
