// A TCP proxy the test controls, to cut a real server (PostgreSQL) off from Kazma and bring it back:
// `cut()` drops every open connection and stops listening, so new ones are refused at once (as when
// the server is down); `restore()` listens on the same port again.
import { createServer, connect, type Server, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';
import { migrateDatabase, openDatabase } from '../../src/core/db/index.ts';
import { createPgDatabase, type FreshDatabase } from './databases.ts';
import { STANDARD_STEPS } from './pglite-template.ts';

export interface TcpProxy {
  port: number;
  cut(): void;
  restore(): void;
  close(): Promise<void>;
}

/**
 * What a tap may do to its connection, as a network would: `break` resets it before the chunk reaches the
 * server; `lose-answer` lets the chunk through (the server acts on it) and resets the connection when the
 * server's answer comes back, so the client never sees it.
 */
export type TapVerdict = 'break' | 'lose-answer';

/** `tap`: called once per client connection; what it returns sees every chunk that client sends (e.g. to count statements). */
export async function startTcpProxy(
  target: { host: string; port: number },
  options: { tap?: () => (chunk: Buffer) => TapVerdict | void } = {},
): Promise<TcpProxy> {
  const sockets = new Set<Socket>();
  const server: Server = createServer((client) => {
    const upstream = connect(target.port, target.host);
    const reset = () => {
      client.resetAndDestroy();
      upstream.destroy();
    };
    if (options.tap) {
      const tap = options.tap();
      let answerLost = false;
      // Registered before the pipes below, so a verdict acts before the chunk (or the answer) is passed on.
      client.on('data', (chunk: Buffer) => {
        const verdict = tap(chunk);
        if (verdict === 'break') reset();
        if (verdict === 'lose-answer') answerLost = true;
      });
      upstream.on('data', () => answerLost && reset());
    }
    for (const socket of [client, upstream]) {
      sockets.add(socket);
      socket.on('close', () => sockets.delete(socket));
      socket.on('error', () => undefined);
    }
    client.pipe(upstream);
    upstream.pipe(client);
    client.on('close', () => upstream.destroy());
    upstream.on('close', () => client.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  let cut = false;
  let closed = false;
  // While cut, the port was free: another socket may hold it for a while (an outgoing connection given it as
  // its local port, or a client that connected to itself while nothing listened there). Listened on again
  // until it is the proxy's, rather than an unhandled error and a database that never comes back.
  const listenAgain = (): void => {
    if (cut || closed) return;
    const retry = (): void => void setTimeout(listenAgain, 50).unref();
    server.once('error', retry);
    server.listen(port, '127.0.0.1', () => server.off('error', retry));
  };
  return {
    port,
    cut: () => {
      if (cut) return;
      cut = true;
      server.close();
      for (const socket of sockets) socket.resetAndDestroy();
    },
    restore: () => {
      if (!cut) return;
      cut = false;
      listenAgain();
    },
    close: () =>
      new Promise<void>((resolve) => {
        // A restore still waiting for its port gives up: no proxy left listening after the test.
        closed = true;
        for (const socket of sockets) socket.destroy();
        if (cut) return resolve();
        server.close(() => resolve());
      }),
  };
}

/**
 * A fresh, migrated PostgreSQL database that Kazma reaches only through a {@link TcpProxy}, so a test can
 * cut the database off mid-run (or, with a `tap`, break chosen statements). `dispose()` closes the handle, the proxy and drops the database.
 */
export async function proxiedPostgres(
  options: Parameters<typeof startTcpProxy>[1] = {},
): Promise<{ database: FreshDatabase; proxy: TcpProxy }> {
  const created = await createPgDatabase();
  const direct = new URL(created.url);
  const proxy = await startTcpProxy({ host: direct.hostname, port: Number(direct.port || 5432) }, options);
  const through = new URL(created.url);
  through.port = String(proxy.port);
  const opened = await openDatabase({ url: through.toString(), poolSize: 10 });
  await migrateDatabase(opened, [...STANDARD_STEPS]);
  const database: FreshDatabase = {
    ...opened,
    dispose: async () => {
      proxy.restore();
      await opened.close();
      await proxy.close();
      await created.drop();
    },
  };
  return { database, proxy };
}
