// Every statement's failure, told to whoever listens (readiness: a write refused for lack of disk space),
// while the caller still gets the error as before. It is watched where drizzle's statements meet the
// driver — postgres.js' `unsafe`, PGlite's `query` and `transaction` — because the failures that matter
// happen deep inside repositories that handle them their own way (a refused inbox write becomes a
// redelivery) and never reach one place above. The LangGraph checkpointer's own connection is not
// watched; a turn's first write (its inbox row) goes through drizzle.
import type { PGlite, Transaction } from '@electric-sql/pglite';
import type { Sql } from 'postgres';

/** A statement's failure; a listener must not throw (what it throws is dropped). */
export type StatementErrorListener = (error: unknown) => void;

/** The listeners of one database handle. */
export class StatementErrors {
  readonly #listeners = new Set<StatementErrorListener>();

  /** Adds a listener; returns what removes it. */
  listen(listener: StatementErrorListener): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  report(error: unknown): void {
    for (const listener of this.#listeners) {
      try {
        listener(error);
      } catch {
        // A listener's own failure must not replace the statement's error.
      }
    }
  }
}

type Unsafe = Sql['unsafe'];

/** Makes `client` (and each transaction it begins) report every statement that fails. */
export function reportPostgresErrors(client: Sql, errors: StatementErrors): Sql {
  reportUnsafe(client, errors);
  const begin = client.begin.bind(client) as (...args: unknown[]) => Promise<unknown>;
  (client as unknown as { begin: typeof begin }).begin = (...args: unknown[]) => {
    const work = args.at(-1) as (tx: Sql) => unknown;
    return begin(...args.slice(0, -1), (tx: Sql) => work(reportUnsafe(tx, errors)));
  };
  return client;
}

function reportUnsafe(client: Sql, errors: StatementErrors): Sql {
  const unsafe = client.unsafe.bind(client) as Unsafe;
  const reported = ((query: string, parameters?: never[], options?: Parameters<Unsafe>[2]) => {
    const pending = unsafe(query, parameters, options);
    // postgres.js runs a query when it is first awaited (`then`), after drizzle chose its form
    // (`.values()`): the failure is seen there, without starting the query early.
    const then = pending.then;
    Object.defineProperty(pending, 'then', {
      value: (ok?: (v: unknown) => unknown, fail?: (e: unknown) => unknown) =>
        then.call(pending, ok, (error: unknown) => {
          errors.report(error);
          if (fail) return fail(error);
          throw error;
        }),
    });
    return pending;
  }) as Unsafe;
  (client as unknown as { unsafe: Unsafe }).unsafe = reported;
  return client;
}

/** `pglite` as drizzle uses it, reporting every statement that fails (in a transaction too). */
export function reportPgliteErrors(pglite: PGlite, errors: StatementErrors): PGlite {
  return reporting(pglite, errors, (target, property) => {
    if (property !== 'transaction') return undefined;
    return <T>(work: (tx: Transaction) => Promise<T>) =>
      target.transaction((tx) => work(reporting(tx, errors, () => undefined)));
  });
}

/** A proxy of `target` whose `query` and `exec` report failures; `other` may supply further members. */
function reporting<T extends Pick<PGlite, 'query' | 'exec'>>(
  target: T,
  errors: StatementErrors,
  other: (target: T, property: string | symbol) => unknown,
): T {
  return new Proxy(target, {
    get(object, property) {
      if (property === 'query' || property === 'exec') {
        const run = (Reflect.get(object, property, object) as (...args: unknown[]) => Promise<unknown>).bind(object);
        return (...args: unknown[]) =>
          run(...args).catch((error: unknown) => {
            errors.report(error);
            throw error;
          });
      }
      const replaced = other(object, property);
      if (replaced !== undefined) return replaced;
      const value: unknown = Reflect.get(object, property, object);
      return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(object) : value;
    },
  });
}
