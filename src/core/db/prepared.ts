// Raw statements sent as prepared statements. drizzle sends `db.execute` unnamed, and postgres.js then
// spends two round trips on every call (describe the parameters, then execute) while the server parses
// and plans the text each time; a named query is prepared once per connection and then costs one round
// trip. PGlite runs the same text either way.
import type { Query } from 'drizzle-orm';
import { PgDialect } from 'drizzle-orm/pg-core';
import type { Db } from './client.ts';

/** Renders drizzle SQL to text and params once, outside any handle (a handle's own dialect is internal). */
export const dialect = new PgDialect();

/**
 * Runs `query` as a prepared statement, its placeholders (sql.placeholder) filled from `values`, and
 * returns the rows as the driver gives them (SQL column names, driver values).
 * Only for a text from a small fixed set: each distinct text stays prepared on every connection it ran on.
 */
export async function queryPrepared(db: Db, query: Query, values: Record<string, unknown> = {}): Promise<Array<Record<string, unknown>>> {
  const result: unknown = await db._.session.prepareQuery(query, undefined, 'kazma', false).execute(values);
  // postgres.js returns the rows as the result; PGlite returns `{ rows }`.
  return Array.isArray(result) ? result : ((result as { rows?: Array<Record<string, unknown>> }).rows ?? []);
}
