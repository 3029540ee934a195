// PGlite's query() runs every call as a new unnamed statement: parse, describe, bind (which plans it),
// describe, execute, sync — six calls into the engine, the text parsed and planned on every one. Kazma
// sends the same few texts on every turn (the inbox's, the outbox's), so drizzle gets this client instead:
// it prepares each text once under a name of its own and from then on runs it in one call — bind,
// execute, sync — with the plan PostgreSQL keeps for a named statement, as postgres.js does on a server
// (prepared-by-default.ts). Measured by timing every call into the engine over 300 simple turns: the
// inbox's and the outbox's statements cost ~1.3 ms of engine time a turn, half of it parsing and planning.
//
// What PGlite's query() promises is kept: the same two mutexes (a drizzle transaction, or the
// checkpointer's session, runs alone), the same parameter serialisers and result parsers, the same
// results, and a database error thrown as PGlite throws it.
import { randomBytes } from 'node:crypto';
import { parse, protocol, type messages, type PGlite, type QueryOptions, type Results } from '@electric-sql/pglite';

type BackendMessage = messages.BackendMessage;

/** The part of PGlite this client drives; the underscored methods are in PGlite's published types. */
interface Engine {
  readonly serializers: Record<number, (value: unknown) => string>;
  readonly parsers: Record<number, (text: string, type: number) => unknown>;
  _checkReady(): Promise<void>;
  _runExclusiveQuery<T>(fn: () => Promise<T>): Promise<T>;
  _runExclusiveTransaction<T>(fn: () => Promise<T>): Promise<T>;
  execProtocolStream(
    message: Uint8Array,
    options?: { syncToFs?: boolean; throwOnError?: boolean },
  ): Promise<BackendMessage[]>;
  syncToFs(): Promise<void>;
}

/** A text prepared under `name`: its parameters' types and the shape of its rows (none for a command). */
interface Prepared {
  name: string;
  paramTypes: number[];
  rowDescription: BackendMessage | undefined;
}

/** SQLSTATEs after which a statement is prepared again and run once more: it was gone, or its rows changed shape. */
const PREPARE_AGAIN = new Set(['26000', '0A000']);

/**
 * `pglite` for drizzle: the same object, except that `query` runs each distinct text as a named prepared
 * statement. At most `maxStatements` stay prepared (the least recently run is closed first): a text that
 * lists a variable number of values (`in ($1, $2, …)`) is a new text per length.
 */
export function withPreparedQueries(pglite: PGlite, options: { maxStatements?: number } = {}): PGlite {
  const max = options.maxStatements ?? 256;
  const engine = pglite as unknown as Engine;
  /** Least recently run first (a Map keeps insertion order; a run moves its text to the end). */
  const prepared = new Map<string, Prepared>();
  // Each wrapper names its statements apart, as several may share one PGlite session: a random prefix,
  // so no count of wrappers is kept anywhere (48 bits: two wrappers of one session never meet).
  const prefix = `kazma_${randomBytes(6).toString('hex')}_`;
  let named = 0;

  async function prepare(text: string, paramTypes: number[] | undefined): Promise<Prepared> {
    const name = `${prefix}${++named}`;
    const described = await engine.execProtocolStream(
      concat(
        protocol.serialize.parse({ name, text, ...(paramTypes && { types: paramTypes }) }),
        protocol.serialize.describe({ type: 'S', name }),
        protocol.serialize.sync(),
      ),
      { syncToFs: false },
    );
    return {
      name,
      paramTypes: parse.parseDescribeStatementResults(described),
      rowDescription: described.find((m) => m.name === 'rowDescription'),
    };
  }

  /** Lets a prepared statement go (closing one that no longer exists is not an error). */
  async function close(name: string): Promise<void> {
    await engine.execProtocolStream(concat(protocol.serialize.close({ type: 'S', name }), protocol.serialize.sync()), {
      syncToFs: false,
    });
  }

  async function evictOldest(): Promise<void> {
    while (prepared.size >= max) {
      const [key, oldest] = prepared.entries().next().value as [string, Prepared];
      prepared.delete(key);
      await close(oldest.name);
    }
  }

  async function run<T>(
    text: string,
    params: unknown[],
    queryOptions: QueryOptions | undefined,
    again: boolean,
  ): Promise<Results<T>> {
    const key = queryOptions?.paramTypes ? `${queryOptions.paramTypes.join(',')}\u0000${text}` : text;
    let statement = prepared.get(key);
    if (statement) prepared.delete(key);
    else {
      await evictOldest();
      statement = await prepare(text, queryOptions?.paramTypes);
    }
    prepared.set(key, statement);
    const values = params.map((value, i) => {
      if (value === null || value === undefined) return null;
      const type = statement.paramTypes[i]!;
      const serialize = queryOptions?.serializers?.[type] ?? engine.serializers[type];
      return serialize ? serialize(value) : String(value);
    });
    let messages: BackendMessage[];
    try {
      messages = await engine.execProtocolStream(
        concat(
          protocol.serialize.bind({ statement: statement.name, values: values as string[] }),
          protocol.serialize.execute({}),
          protocol.serialize.sync(),
        ),
        { syncToFs: false },
      );
    } catch (error) {
      if (!again && PREPARE_AGAIN.has((error as { code?: string }).code ?? '')) {
        prepared.delete(key);
        await close(statement.name);
        return run(text, params, queryOptions, true);
      }
      throw error;
    }
    await engine.syncToFs();
    const rows = statement.rowDescription ? [statement.rowDescription, ...messages] : messages;
    return parse.parseResults(rows, engine.parsers as never, queryOptions)[0] as Results<T>;
  }

  const query = async <T>(text: string, params: unknown[] = [], queryOptions?: QueryOptions): Promise<Results<T>> => {
    await engine._checkReady();
    try {
      return await engine._runExclusiveTransaction(() =>
        engine._runExclusiveQuery(() => run<T>(text, params, queryOptions, false)),
      );
    } catch (error) {
      // As PGlite's query() does, whether preparing or running it failed: the error names its statement.
      throw Object.assign(error as object, { query: text, params });
    }
  };

  return new Proxy(pglite, {
    get(target, property) {
      if (property === 'query') return query;
      const value: unknown = Reflect.get(target, property, target);
      return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(target) : value;
    },
  });
}

function concat(...parts: Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const part of parts) {
    out.set(part, at);
    at += part.length;
  }
  return out;
}
