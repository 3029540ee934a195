import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, rmSync } from 'node:fs';
import { delimiter, join } from 'node:path';
import { Redis, type RedisOptions } from 'ioredis';
import { redactUrl } from '../core/db/index.ts';
import { StartupError } from '../core/errors.ts';
import type { Logger } from '../core/log/index.ts';
import { withTimeout } from '../core/with-timeout.ts';

const DEFAULT_URL = 'redis://127.0.0.1:6379';

/** How Kazma reaches Redis, and the private redis-server it started, if any. */
export interface RedisHandle {
  /** ioredis options for BullMQ queues and workers (each makes its own connections). */
  readonly options: RedisOptions;
  /** Where Redis is, safe to print. */
  readonly where: string;
  /** Resolves when Redis answers PING; rejects otherwise (used by /readyz). */
  ping(): Promise<void>;
  close(): Promise<void>;
}

export interface ConnectRedisOptions {
  /** redis.url; empty → 127.0.0.1:6379, else a private redis-server on a unix socket. */
  url: string;
  dataDir: string;
  /** PATH to look for redis-server in (from the config module's environment). */
  path?: string;
  logger?: Logger;
}

/** Connects to the configured Redis, or provides the embedded default. Fails with one line saying how to fix it. */
export async function connectRedis(options: ConnectRedisOptions): Promise<RedisHandle> {
  if (options.url) {
    const redisOptions = optionsFromUrl(options.url);
    await mustAnswer(
      redisOptions,
      `Redis at ${redactUrl(options.url)} does not answer. Start it or fix redis.url (REDIS_URL).`,
    );
    return handle(redisOptions, redactUrl(options.url));
  }
  const local = optionsFromUrl(DEFAULT_URL);
  if (await answers(local)) return handle(local, DEFAULT_URL);
  const binary = findOnPath('redis-server', options.path ?? '');
  if (!binary) {
    throw new StartupError(
      'redis_unavailable',
      `Nothing answers at ${DEFAULT_URL} and redis-server is not installed: install Redis (e.g. apt install ` +
        `redis-server) or set redis.url (REDIS_URL).`,
    );
  }
  return startPrivateRedis(binary, options.dataDir, options.logger);
}

async function startPrivateRedis(binary: string, dataDir: string, logger?: Logger): Promise<RedisHandle> {
  mkdirSync(dataDir, { recursive: true });
  const socket = join(dataDir, 'redis.sock');
  // The Kazma that owns this data_dir started one already (a command run beside `kazma start`): share it.
  if (existsSync(socket) && (await answers({ path: socket }))) return handle({ path: socket }, `unix:${socket}`);
  rmSync(socket, { force: true });
  // port 0: no TCP listener at all; the unix socket is private to this data directory.
  const child = spawn(
    binary,
    [
      '--port',
      '0',
      '--unixsocket',
      socket,
      '--unixsocketperm',
      '700',
      '--save',
      '',
      '--appendonly',
      'no',
      '--dir',
      dataDir,
    ],
    {
      stdio: ['ignore', 'ignore', 'pipe'],
    },
  );
  const options: RedisOptions = { path: socket };
  for (let i = 0; i < 100 && child.exitCode === null; i++) {
    if (existsSync(socket) && (await answers(options))) {
      logger?.info({ socket }, 'started a private redis-server');
      return handle(options, `unix:${socket}`, child);
    }
    await new Promise((r) => setTimeout(r, 50));
  }
  child.kill('SIGKILL');
  throw new StartupError(
    'redis_start_failed',
    `The private redis-server did not start on ${socket}; set redis.url (REDIS_URL) to a running Redis.`,
  );
}

function handle(options: RedisOptions, where: string, child?: ChildProcess): RedisHandle {
  // A dedicated probe connection that fails fast instead of queueing while Redis is down.
  const probe = new Redis({
    ...options,
    lazyConnect: true,
    enableOfflineQueue: false,
    maxRetriesPerRequest: 0,
    retryStrategy: () => 500,
  });
  probe.on('error', () => {}); // state is reported by ping(), not by unhandled events
  return {
    options: { ...options, maxRetriesPerRequest: null },
    where,
    ping: async () => {
      if (probe.status === 'wait') await probe.connect();
      await withTimeout(probe.ping(), 1000);
    },
    close: async () => {
      probe.disconnect();
      if (child && child.exitCode === null) {
        const exited = new Promise((r) => child.once('exit', r));
        child.kill('SIGTERM');
        await Promise.race([exited, new Promise((r) => setTimeout(r, 3000))]);
      }
    },
  };
}

/**
 * Whether Redis answers PING; asked twice. On a loaded machine a start can hold the event loop for over
 * a second (modules loading, PGlite starting) and the first probe's 1 s timers fire before its answer is
 * read. A Redis that is down refuses the connection at once, so saying so takes no longer.
 */
async function answers(options: RedisOptions): Promise<boolean> {
  return (await answerOnce(options)) || answerOnce(options);
}

async function answerOnce(options: RedisOptions): Promise<boolean> {
  const client = new Redis({
    ...options,
    lazyConnect: true,
    enableOfflineQueue: false,
    maxRetriesPerRequest: 0,
    retryStrategy: () => null,
    connectTimeout: 1000,
  });
  client.on('error', () => {});
  try {
    await client.connect();
    return (await withTimeout(client.ping(), 1000)) === 'PONG';
  } catch {
    return false;
  } finally {
    client.disconnect();
  }
}

async function mustAnswer(options: RedisOptions, message: string): Promise<void> {
  if (!(await answers(options))) throw new StartupError('redis_unreachable', message);
}

function optionsFromUrl(url: string): RedisOptions {
  const parsed = new URL(url);
  if (parsed.protocol === 'unix:') return { path: parsed.pathname };
  return {
    host: parsed.hostname || '127.0.0.1',
    port: parsed.port ? Number(parsed.port) : 6379,
    username: parsed.username ? decodeURIComponent(parsed.username) : undefined,
    password: parsed.password ? decodeURIComponent(parsed.password) : undefined,
    db: parsed.pathname.length > 1 ? Number(parsed.pathname.slice(1)) : undefined,
    tls: parsed.protocol === 'rediss:' ? {} : undefined,
  };
}

function findOnPath(name: string, pathList: string): string | undefined {
  for (const dir of pathList.split(delimiter).filter(Boolean)) {
    const candidate = join(dir, name);
    if (existsSync(candidate)) return candidate;
  }
  return undefined;
}
