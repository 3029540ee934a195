// A PostgreSQL client's statements read off its TCP stream, for a TcpProxy tap: after the untyped startup
// message (and an SSLRequest before it), the typed frontend messages of pglite-statements.ts. Counts them
// for the benches; lets a test break the connection that carries a chosen statement.
import { newProtocolState, readFrontendMessages } from './pglite-statements.ts';
import type { TapVerdict } from './tcp-proxy.ts';

const SSL_REQUEST = 80877103;

/**
 * A tap factory for startTcpProxy: `onStatement` sees each statement's text, and its place on its
 * connection (0: the first statement the connection sends), and may return a verdict on the connection.
 */
export function statementTap(
  onStatement: (text: string, nth: number) => TapVerdict | void,
): () => (chunk: Buffer) => TapVerdict | void {
  return () => {
    let pending = Buffer.alloc(0);
    let untyped = true;
    let sent = 0;
    const state = newProtocolState();
    return (chunk) => {
      pending = Buffer.concat([pending, chunk]);
      while (untyped && pending.length >= 8) {
        const length = pending.readInt32BE(0);
        if (pending.length < length) break;
        const code = pending.readInt32BE(4);
        pending = pending.subarray(length);
        if (code !== SSL_REQUEST) untyped = false; // the startup message follows an SSLRequest
      }
      if (untyped) return undefined;
      let verdict = undefined as TapVerdict | void;
      const { rest } = readFrontendMessages(
        pending,
        (text) => {
          verdict = onStatement(text, sent++) ?? verdict;
        },
        state,
      );
      pending = pending.subarray(rest);
      return verdict;
    };
  };
}
