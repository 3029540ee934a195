// Counting the SQL statements a workload sends, on either database, without touching the code under
// test: on PGlite by reading the wire-protocol messages handed to its engine, on PostgreSQL by a TCP
// proxy that reads the client → server stream. A statement is a simple-query message ('Q') or an
// extended-protocol Execute ('E'); a transaction's BEGIN and COMMIT count as statements too.
import type { PGlite } from '@electric-sql/pglite';
import { startTcpProxy } from '../../tests/helpers/tcp-proxy.ts';

export interface StatementCounter {
  /** Statements seen so far. */
  readonly count: number;
}

const SIMPLE_QUERY = 0x51; // 'Q'
const EXECUTE = 0x45; // 'E'

/** Counts statements in a buffer of typed frontend messages (type byte, int32 length including itself). */
function countTyped(buffer: Uint8Array, from = 0): { statements: number; rest: number } {
  const view = new DataView(buffer.buffer, buffer.byteOffset, buffer.byteLength);
  let statements = 0;
  let at = from;
  while (at + 5 <= buffer.length) {
    const length = view.getInt32(at + 1);
    if (at + 1 + length > buffer.length) break;
    if (buffer[at] === SIMPLE_QUERY || buffer[at] === EXECUTE) statements++;
    at += 1 + length;
  }
  return { statements, rest: at };
}

/** Counts every statement the in-process PGlite runs from now on (drizzle's and the checkpointer's alike). */
export function countPgliteStatements(pglite: PGlite): StatementCounter {
  const counter = { count: 0 };
  // Every query path (query, exec, execProtocol*, the node-postgres bridge) ends in execProtocolRawSync.
  const engine = pglite as unknown as { execProtocolRawSync(message: Uint8Array): Uint8Array };
  const original = engine.execProtocolRawSync.bind(pglite);
  engine.execProtocolRawSync = (message: Uint8Array) => {
    counter.count += countTyped(message).statements;
    return original(message);
  };
  return counter;
}

export interface CountingProxy extends StatementCounter {
  /** `url` with its host and port replaced by the proxy's. */
  through(url: string): string;
  close(): Promise<void>;
}

/** A TCP proxy in front of PostgreSQL (tests/helpers/tcp-proxy.ts) that counts the statements every connection through it sends. */
export async function startCountingProxy(target: { host: string; port: number }): Promise<CountingProxy> {
  let count = 0;
  const proxy = await startTcpProxy(target, {
    tap: () => {
      let pending = Buffer.alloc(0);
      // The startup message (and an SSLRequest before it) carries no type byte.
      let untyped = true;
      return (chunk) => {
        pending = Buffer.concat([pending, chunk]);
        while (untyped && pending.length >= 8) {
          const length = pending.readInt32BE(0);
          if (pending.length < length) break;
          const code = pending.readInt32BE(4);
          pending = pending.subarray(length);
          if (code !== 80877103) untyped = false; // 80877103: SSLRequest; the startup message follows it
        }
        if (untyped) return;
        const { statements, rest } = countTyped(pending);
        count += statements;
        pending = pending.subarray(rest);
      };
    },
  });
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
