// drizzle sends every statement unprepared (postgres.js `prepare: false`), and postgres.js then describes
// each one before it runs it: Parse/Describe, a round trip for the parameter types, then Bind/Execute —
// two round trips, and a parse and a plan on the server, per statement. Prepared, a statement is parsed
// once per connection (postgres.js keeps it by its text and types) and then costs one round trip.
//
// Kazma's statements are drizzle-built with parameters, so the set of distinct texts is small and fixed;
// postgres.js recycles each connection after 30–60 minutes (max_lifetime), which bounds what a
// connection keeps, and it re-prepares a statement whose plan a migration invalidated.
import type { Sql } from 'postgres';

type Unsafe = Sql['unsafe'];

/** Makes `client` (and each transaction it begins) run every statement prepared unless told otherwise. */
export function preparedByDefault(client: Sql): Sql {
  prepareUnsafe(client);
  const begin = client.begin.bind(client) as (...args: unknown[]) => Promise<unknown>;
  // drizzle's transactions run on the Sql postgres.js hands the callback, a handle of its own.
  (client as unknown as { begin: typeof begin }).begin = (...args: unknown[]) => {
    const work = args.at(-1) as (tx: Sql) => unknown;
    return begin(...args.slice(0, -1), (tx: Sql) => work(prepareUnsafe(tx)));
  };
  return client;
}

function prepareUnsafe(client: Sql): Sql {
  const unsafe = client.unsafe.bind(client) as Unsafe;
  const prepared: Unsafe = (query, parameters, options) => unsafe(query, parameters, { ...options, prepare: true });
  (client as unknown as { unsafe: Unsafe }).unsafe = prepared;
  return client;
}
