// A 30-second Redis outage is said once in the log — with the address and what waits — and once when it
// ends: not a line per BullMQ queue, worker, event stream or ioredis reconnect attempt. Every warn-or-worse
// line of the outage is counted.
import { afterEach, describe, expect, it } from 'vitest';
import { eventually } from '../helpers/eventually.ts';
import { KazmaProcess, writeConfig } from '../helpers/kazma-process.ts';
import { startTcpProxy, type TcpProxy } from '../helpers/tcp-proxy.ts';

let kazma: KazmaProcess | undefined;
let proxy: TcpProxy | undefined;
afterEach(async () => {
  kazma?.child.kill('SIGKILL');
  await proxy?.close();
  kazma = undefined;
  proxy = undefined;
});

const NO_MODEL = 'no model is configured: every turn will answer with how to configure one';

describe('a Redis outage', () => {
  it('of 30 s is one log line when it starts and one when it ends; /readyz names it meanwhile', async () => {
    proxy = await startTcpProxy({ host: '127.0.0.1', port: 6379 });
    const where = `redis://127.0.0.1:${proxy.port}`;
    const { path } = writeConfig('http: { port: 0 }\nruns: { sweep_interval: 1s }\n');
    kazma = new KazmaProcess(['start', '--config', path], {
      env: { DATABASE_URL: undefined, REDIS_URL: where },
    });
    const port = await kazma.port();
    await kazma.waitForLog((l) => l.msg === 'kazma started');
    const worse = () => kazma!.logs().filter((l) => (l.level as number) >= 40 && l.msg !== NO_MODEL);
    expect(worse()).toEqual([]);

    proxy.cut();
    const down = await eventually(
      () => fetch(`http://127.0.0.1:${port}/readyz`).then((r) => r.json() as Promise<{ message?: string }>),
      (b) => (b.message ? b : undefined),
      'readyz naming Redis',
    );
    expect(down.message).toContain(`redis unreachable at ${where}`);
    // Queues, workers, event streams and the sweeps all try (and fail) meanwhile.
    await new Promise((r) => setTimeout(r, 30_000));
    expect(worse().map((l) => l.msg)).toEqual([expect.stringMatching(new RegExp(`^redis unreachable at ${where}`))]);

    proxy.restore();
    await kazma.waitForLog((l) => l.msg === `redis is back at ${where}`, 60_000);
    // Time for anything that would complain after the reconnect (a worker's stalled check, a queue event).
    await new Promise((r) => setTimeout(r, 3_000));
    expect(worse()).toHaveLength(1);
    expect(kazma.logs().filter((l) => String(l.msg).startsWith('redis is back')).length).toBe(1);
  }, 150_000);
});
