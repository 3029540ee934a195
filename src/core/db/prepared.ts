// Statements whose text is built once. On PostgreSQL every statement already runs prepared
// (prepared-by-default.ts); what these add is skipping drizzle's query building on hot paths, on both
// databases, and (queryPrepared) running a raw text through a handle that did not come from openDatabase.
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
export async function queryPrepared(
  db: Db,
  query: Query,
  values: Record<string, unknown> = {},
): Promise<Array<Record<string, unknown>>> {
  const result: unknown = await db._.session.prepareQuery(query, undefined, 'kazma', false).execute(values);
  return rowsOf(result);
}

/** The rows of a raw statement's result: postgres.js returns the rows as the result; PGlite returns `{ rows }`. */
export function rowsOf<T = Record<string, unknown>>(result: unknown): T[] {
  return Array.isArray(result) ? (result as T[]) : ((result as { rows?: T[] }).rows ?? []);
}

/** Per handle, the queries {@link builtOnce} built. */
const BUILT = new WeakMap<Db, Map<string, unknown>>();

/**
 * A drizzle query built once per handle and reused: `build` returns it `.prepare()`d with sql.placeholder
 * for its values, so a statement on every turn's path skips drizzle's query building (about a tenth of a
 * turn's CPU when each was built anew). `key` names the query; it must not depend on the values.
 */
export function builtOnce<T>(db: Db, key: string, build: (db: Db) => T): T {
  let built = BUILT.get(db);
  if (!built) BUILT.set(db, (built = new Map()));
  if (!built.has(key)) built.set(key, build(db));
  return built.get(key) as T;
}
