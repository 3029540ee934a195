// While PostgreSQL is unreachable the log says so once — with the address and what waits — and once
// when it is back; /readyz names it in plain words. Not an error line per sweep step, per poll, per
// pooled connection. When it is back, every job Redis should hold is derived again from the database, so
// a task or a reminder whose job ran out of retries during a long outage goes on.
import { afterEach, describe, expect, it } from 'vitest';
import { createPgDatabase } from '../helpers/databases.ts';
import { eventually } from '../helpers/eventually.ts';
import { KazmaProcess, writeConfig } from '../helpers/kazma-process.ts';
import { startTcpProxy, type TcpProxy } from '../helpers/tcp-proxy.ts';

let kazma: KazmaProcess | undefined;
let proxy: TcpProxy | undefined;
let drop: (() => Promise<void>) | undefined;
afterEach(async () => {
  kazma?.child.kill('SIGKILL');
  await proxy?.close();
  await drop?.();
  kazma = undefined;
  proxy = undefined;
  drop = undefined;
});

describe('a PostgreSQL outage', () => {
  it('is said once in the log, with the address, and once when it ends; /readyz names it', async () => {
    const pg = await createPgDatabase();
    drop = pg.drop;
    const real = new URL(pg.url);
    proxy = await startTcpProxy({ host: real.hostname, port: Number(real.port || 5432) });
    const viaProxy = new URL(pg.url);
    viaProxy.port = String(proxy.port);
    const { path } = writeConfig(`http: { port: 0 }\nruns: { sweep_interval: 1s }\n`);
    kazma = new KazmaProcess(['start', '--config', path], {
      env: { DATABASE_URL: viaProxy.toString(), REDIS_URL: undefined },
    });
    const port = await kazma.port();
    await kazma.waitForLog((l) => l.msg === 'kazma started');
    expect((await fetch(`http://127.0.0.1:${port}/readyz`)).status).toBe(200);

    proxy.cut();
    const where = `postgres://postgres@127.0.0.1:${proxy.port}${viaProxy.pathname}`;
    const down = await eventually(
      () => fetch(`http://127.0.0.1:${port}/readyz`).then((r) => r.json() as Promise<{ message?: string }>),
      (b) => (b.message ? b : undefined),
      'readyz naming the database',
    );
    expect(down.message).toBe(`database unreachable at ${where}`);
    // Several sweeps (every second) and tool-switch polls (every 5 s) fail meanwhile.
    await new Promise((r) => setTimeout(r, 7_000));
    const about = () =>
      kazma!
        .logs()
        .filter(
          (l) =>
            (l.level as number) >= 40 &&
            l.msg !== 'no model is configured: every turn will answer with how to configure one',
        );
    expect(about().map((l) => l.msg)).toEqual([
      `the database unreachable at ${where}; new messages are refused (the platforms deliver them again), and sweeps and background work wait until it is back`,
    ]);

    proxy.restore();
    await kazma.waitForLog((l) => l.msg === `the database is back at ${where}`, 30_000);
    // Work whose jobs ran out of retries meanwhile (a task, a reminder) is derived again from the database.
    await kazma.waitForLog((l) => l.msg === 'the jobs redis held are restored' && l.reason === 'the database is back');
    expect(about()).toHaveLength(1);
  }, 120_000);
});
