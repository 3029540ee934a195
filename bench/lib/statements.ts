// Counting the SQL statements a workload sends, on either database, without touching the code under
// test: on PGlite by reading the wire-protocol messages handed to its engine, on PostgreSQL by a TCP
// proxy that reads the client → server stream. A statement is a simple-query message ('Q') or an
// extended-protocol Execute ('E'); a transaction's BEGIN and COMMIT count as statements too.
import type { PGlite } from '@electric-sql/pglite';
import { statementTap } from '../../tests/helpers/pg-wire-tap.ts';
import { watchPgliteStatements } from '../../tests/helpers/pglite-statements.ts';
import { startTcpProxy } from '../../tests/helpers/tcp-proxy.ts';

export interface StatementCounter {
  /** Statements seen so far. */
  readonly count: number;
}

/** Counts every statement the in-process PGlite runs from now on (drizzle's and the checkpointer's alike). */
export function countPgliteStatements(pglite: PGlite): StatementCounter {
  return watchPgliteStatements(pglite);
}

export interface CountingProxy extends StatementCounter {
  /** `url` with its host and port replaced by the proxy's. */
  through(url: string): string;
  close(): Promise<void>;
}

/** A TCP proxy in front of PostgreSQL (tests/helpers/tcp-proxy.ts) that counts the statements every connection through it sends. */
export async function startCountingProxy(target: { host: string; port: number }): Promise<CountingProxy> {
  let count = 0;
  const proxy = await startTcpProxy(target, { tap: statementTap(() => void count++) });
  return {
    get count() {
      return count;
    },
    through(url: string) {
      const parsed = new URL(url);
      parsed.hostname = '127.0.0.1';
      parsed.port = String(proxy.port);
      return parsed.toString();
    },
    close: () => proxy.close(),
  };
}
