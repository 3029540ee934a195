import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { seedPgliteDataDir } from '../helpers/databases.ts';
import { eventually } from '../helpers/eventually.ts';
import { KazmaProcess, writeConfig } from '../helpers/kazma-process.ts';
import { freePort } from '../helpers/free-port.ts';
import { startPrivateRedis } from '../helpers/private-redis.ts';

const running: KazmaProcess[] = [];
afterEach(() => {
  for (const proc of running.splice(0)) proc.kill('SIGKILL');
});

function startKazma(configPath: string, env: Record<string, string | undefined> = {}): KazmaProcess {
  const proc = new KazmaProcess(['start', '--config', configPath], {
    env: { DATABASE_URL: undefined, REDIS_URL: undefined, ...env },
  });
  running.push(proc);
  return proc;
}

describe('kazma start on embedded defaults', () => {
  it('reaches /readyz 200 on a fresh PGlite data dir and exits 0 within 5 s of SIGTERM', async () => {
    const { path } = writeConfig('http: { port: 0 }\n');
    const kazma = startKazma(path);
    const port = await kazma.port();
    const health = await fetch(`http://127.0.0.1:${port}/healthz`);
    expect(health.status).toBe(200);
    const ready = await fetch(`http://127.0.0.1:${port}/readyz`);
    expect(ready.status).toBe(200);
    expect(await ready.json()).toMatchObject({ status: 'ready', down: [] });
    expect(kazma.logs().find((l) => l.msg === 'database ready')?.kind).toBe('pglite');

    const stoppedAt = Date.now();
    kazma.kill('SIGTERM');
    const { code } = await kazma.exited;
    expect(code).toBe(0);
    expect(Date.now() - stoppedAt).toBeLessThan(5_000);
  });

  it('refuses a second kazma on the same data dir, naming the running pid; the first keeps serving', async () => {
    const { dir, path } = writeConfig('http: { port: 0 }\n');
    await seedPgliteDataDir(join(dir, 'kazma-data'));
    const first = startKazma(path);
    const port = await first.port();

    const second = startKazma(path);
    const { code } = await second.exited;
    expect(code).toBe(1);
    expect(second.stderr).toContain(`Another Kazma (pid ${first.child.pid}) is already using`);
    expect(second.stderr).toContain('set database.url');

    const ready = await fetch(`http://127.0.0.1:${port}/readyz`);
    expect(ready.status).toBe(200);
    first.kill('SIGTERM');
    expect((await first.exited).code).toBe(0);
  });

  it('answers /readyz 503 naming redis when Redis stops, and 200 again when it is back', async () => {
    const redis = await startPrivateRedis();
    try {
      const { dir: configDir, path } = writeConfig(`http: { port: 0 }\nredis: { url: "${redis.url}" }\n`);
      await seedPgliteDataDir(join(configDir, 'kazma-data'));
      const kazma = startKazma(path);
      const port = await kazma.port();
      // The start over (its recovery writes to Redis), so what follows is an outage, not a slow start.
      await kazma.waitForLog((l) => l.msg === 'kazma started');
      await eventually(
        () => readyStatus(port),
        (status) => status === 200,
        '/readyz answering 200 after the start',
        { timeoutMs: 30_000, intervalMs: 100 },
      );

      await redis.kill();
      const down = await fetch(`http://127.0.0.1:${port}/readyz`, { signal: AbortSignal.timeout(10_000) });
      expect(down.status).toBe(503);
      const body = (await down.json()) as { down: string[]; message: string };
      expect(body.down).toEqual(['redis']);
      // In plain words, with the address.
      expect(body.message).toBe(`redis unreachable at ${redis.url}`);
      // The log says it once, with the address and what waits — not once per reconnect attempt and worker.
      await new Promise((r) => setTimeout(r, 4_000));
      const said = () => kazma.logs().filter((l) => /redis/i.test(JSON.stringify(l)) && l.msg !== 'redis ready');
      expect(said().map((l) => l.msg)).toEqual([
        `redis unreachable at ${redis.url}; card and reply deliveries, sweeps, background tasks and reminders wait (nothing is lost: they are in the database) until it is back`,
      ]);
      expect(kazma.logs().filter((l) => l.msg === 'job worker error')).toEqual([]);

      await redis.start();
      await eventually(
        () => readyStatus(port),
        (status) => status === 200,
        '/readyz answering 200 once Redis is back',
        { timeoutMs: 30_000, intervalMs: 100 },
      );
      await kazma.waitForLog((l) => l.msg === `redis is back at ${redis.url}`, 15_000);
      expect(said()).toHaveLength(2);
      kazma.kill('SIGTERM');
      expect((await kazma.exited).code).toBe(0);
    } finally {
      await redis.kill();
    }
  });

  it('fails to start with one clear line when the configured Redis does not answer', async () => {
    const { dir, path } = writeConfig(`http: { port: 0 }\nredis: { url: "redis://127.0.0.1:${await freePort()}" }\n`);
    await seedPgliteDataDir(join(dir, 'kazma-data'));
    const kazma = startKazma(path);
    const { code } = await kazma.exited;
    expect(code).toBe(1);
    expect(kazma.stderr).toMatch(
      /^kazma: Redis at redis:\/\/127\.0\.0\.1:\d+ does not answer\. Start it or fix redis\.url/m,
    );
  });
});

/** /readyz's status code, or why it gave none (a failed request is one more reason to keep waiting). */
async function readyStatus(port: number): Promise<number | string> {
  try {
    return (await fetch(`http://127.0.0.1:${port}/readyz`, { signal: AbortSignal.timeout(5_000) })).status;
  } catch (error) {
    return String(error);
  }
}
