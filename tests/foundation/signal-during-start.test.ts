// A SIGTERM that comes while Kazma is still starting (recovery waiting on a slow Redis, a big data dir)
// must stop it the graceful way, as one after the start does: exit 0, the stop's steps run. Node's default
// for a signal nobody listens to yet is to end the process where it stands. Redis is paused (SIGSTOP) once
// the start has checked it, so the start is held at its next Redis call while the signal comes.
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { seedPgliteDataDir } from '../helpers/databases.ts';
import { eventually } from '../helpers/eventually.ts';
import { KazmaProcess, writeConfig } from '../helpers/kazma-process.ts';
import { type PrivateRedis, startPrivateRedis } from '../helpers/private-redis.ts';

const running: KazmaProcess[] = [];
const redises: PrivateRedis[] = [];
afterEach(async () => {
  for (const proc of running.splice(0)) proc.kill('SIGKILL');
  for (const redis of redises.splice(0)) {
    redis.process.kill('SIGCONT');
    await redis.kill();
  }
});

/** A config on a private Redis and a seeded PGlite data dir, and `kazma <command>` spawned on it. */
async function spawnOnPrivateRedis(command: 'start' | 'chat'): Promise<{ kazma: KazmaProcess; redis: PrivateRedis }> {
  const redis = await startPrivateRedis();
  redises.push(redis);
  const { dir, path } = writeConfig(`http: { port: 0 }\nredis: { url: "${redis.url}" }\n`);
  await seedPgliteDataDir(join(dir, 'kazma-data'));
  const kazma = new KazmaProcess([command, '--config', path], {
    env: { DATABASE_URL: undefined, REDIS_URL: undefined },
  });
  running.push(kazma);
  return { kazma, redis };
}

/** JSON log lines on either stream (`kazma chat` logs to stderr, keeping stdout for the conversation). */
function logMessages(kazma: KazmaProcess): string[] {
  return `${kazma.stdout}\n${kazma.stderr}`
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => (JSON.parse(line) as { msg: string }).msg);
}

/** Pauses Redis once the start has found it, sends SIGTERM while the start waits on it, then resumes Redis. */
async function signalDuringStart(kazma: KazmaProcess, redis: PrivateRedis): Promise<void> {
  await eventually(
    () => logMessages(kazma),
    (messages) => messages.includes('redis ready'),
    'the start finding Redis',
    { timeoutMs: 90_000, intervalMs: 20 },
  );
  redis.process.kill('SIGSTOP');
  await new Promise((r) => setTimeout(r, 1_000));
  kazma.kill('SIGTERM');
  await new Promise((r) => setTimeout(r, 500));
  redis.process.kill('SIGCONT');
}

describe('a SIGTERM during the start', () => {
  it('kazma start: stops gracefully once started, exit 0', async () => {
    const { kazma, redis } = await spawnOnPrivateRedis('start');
    await signalDuringStart(kazma, redis);
    const exit = await kazma.exited;
    expect(exit, `${kazma.stdout}\n${kazma.stderr}`).toEqual({ code: 0, signal: null });
    // The signal was heard while the start was under way, and the stop ran to its end.
    const messages = logMessages(kazma);
    expect(messages.indexOf('stopping')).toBeGreaterThan(-1);
    expect(messages.indexOf('stopping')).toBeLessThan(messages.indexOf('kazma started'));
    expect(messages).toContain('stopped');
  });

  it('kazma chat: ends the session before it begins, exit 0', async () => {
    const { kazma, redis } = await spawnOnPrivateRedis('chat');
    await signalDuringStart(kazma, redis);
    const exit = await kazma.exited;
    expect(exit, `${kazma.stdout}\n${kazma.stderr}`).toEqual({ code: 0, signal: null });
    expect(kazma.stderr).not.toMatch(/Error|fatal/);
  });
});
