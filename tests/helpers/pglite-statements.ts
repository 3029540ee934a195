// The SQL statements a workload sends to an in-process PGlite, read off the wire-protocol messages handed
// to its engine — every path (drizzle, the checkpointer's node-postgres bridge) ends in execProtocolRawSync.
// A statement is a simple query ('Q', its text) or an extended-protocol Execute ('E', the text of the
// statement its Bind named: parsed just before, or prepared earlier under a name). Used by tests that hold a path to its statement count, and by the benches.
import type { PGlite } from '@electric-sql/pglite';

const SIMPLE_QUERY = 0x51; // 'Q'
const PARSE = 0x50; // 'P'
const BIND = 0x42; // 'B'
const EXECUTE = 0x45; // 'E'

export interface FrontendMessages {
  /** Statements (Q and E messages) in the complete messages read. */
  statements: number;
  /** Where the first incomplete message starts. */
  rest: number;
}

/** Reads typed frontend messages (type byte, int32 length including itself); `onStatement` gets each statement's text. */
export function readFrontendMessages(
  buffer: Uint8Array,
  onStatement?: (text: string) => void,
  state: ProtocolState = newProtocolState(),
): FrontendMessages {
  const view = new DataView(buffer.buffer, buffer.byteOffset, buffer.byteLength);
  let statements = 0;
  let at = 0;
  while (at + 5 <= buffer.length) {
    const length = view.getInt32(at + 1);
    if (at + 1 + length > buffer.length) break;
    const type = buffer[at];
    if (onStatement && (type === SIMPLE_QUERY || type === PARSE || type === BIND)) {
      const body = buffer.subarray(at + 5, at + 1 + length);
      const zero = body.indexOf(0);
      const first = new TextDecoder().decode(body.subarray(0, zero));
      const second = () => new TextDecoder().decode(body.subarray(zero + 1, body.indexOf(0, zero + 1)));
      // Q: text\0. P: name\0 text\0 …. B: portal\0 statement\0 ….
      if (type === SIMPLE_QUERY) onStatement(first);
      else if (type === PARSE) state.statements.set(first, second());
      else state.bound = state.statements.get(second()) ?? '';
    }
    if (type === EXECUTE) onStatement?.(state.bound);
    if (type === SIMPLE_QUERY || type === EXECUTE) statements++;
    at += 1 + length;
  }
  return { statements, rest: at };
}

/** What a connection's earlier messages said: its statements by name ('' the unnamed one), the one bound last. */
export interface ProtocolState {
  statements: Map<string, string>;
  bound: string;
}

export function newProtocolState(): ProtocolState {
  return { statements: new Map(), bound: '' };
}

export interface PgliteStatements {
  /** Statements seen so far. */
  readonly count: number;
  /** The texts recorded since the last call, and starts afresh. */
  take(): string[];
}

/** Counts (and with `record`, keeps the text of) every statement the PGlite runs from now on. */
export function watchPgliteStatements(pglite: PGlite, options: { record?: boolean } = {}): PgliteStatements {
  let count = 0;
  let texts: string[] = [];
  const state = newProtocolState();
  const engine = pglite as unknown as { execProtocolRawSync(message: Uint8Array): Uint8Array };
  const original = engine.execProtocolRawSync.bind(pglite);
  const keep = options.record ? (text: string) => texts.push(text.replace(/\s+/g, ' ').trim()) : undefined;
  engine.execProtocolRawSync = (message: Uint8Array) => {
    count += readFrontendMessages(message, keep, state).statements;
    return original(message);
  };
  return {
    get count() {
      return count;
    },
    take() {
      const taken = texts;
      texts = [];
      return taken;
    },
  };
}
