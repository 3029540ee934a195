// A redis-server of the test's own, on a free port, that the test can kill, pause and start again on the
// same port: to take Redis away from one Kazma process without touching the shared one other tests use.
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { eventually } from './eventually.ts';
import { freePort } from './free-port.ts';

export interface PrivateRedis {
  readonly port: number;
  readonly url: string;
  /** The running redis-server (replaced by each `start`). */
  readonly process: ChildProcess;
  /** Starts it (again) on the same port and waits until it accepts connections. */
  start(): Promise<void>;
  /** Kills it with SIGKILL and waits for it to exit. */
  kill(): Promise<void>;
}

/** Starts a private redis-server (no persistence) and waits until it accepts connections. */
export async function startPrivateRedis(): Promise<PrivateRedis> {
  const port = await freePort();
  const dir = mkdtempSync(join(tmpdir(), 'kazma-redis-'));
  let child: ChildProcess | undefined;
  const redis: PrivateRedis = {
    port,
    url: `redis://127.0.0.1:${port}`,
    get process() {
      if (!child) throw new Error('the private redis-server was never started');
      return child;
    },
    async start() {
      child = spawn(
        'redis-server',
        ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--dir', dir],
        { stdio: 'ignore' },
      );
      await eventually(
        () => tcpAnswers(port),
        (up) => up,
        `redis-server answering on port ${port}`,
        { timeoutMs: 10_000, intervalMs: 100 },
      );
    },
    async kill() {
      if (!child || child.exitCode !== null || child.signalCode !== null) return;
      const exited = new Promise((r) => child!.once('exit', r));
      child.kill('SIGKILL');
      await exited;
    },
  };
  await redis.start();
  return redis;
}

async function tcpAnswers(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = new Socket();
    socket.once('connect', () => (socket.destroy(), resolve(true)));
    socket.once('error', () => resolve(false));
    socket.connect(port, '127.0.0.1');
  });
}
