import type { SQL } from 'drizzle-orm';
import type { Db } from '../../../src/core/db/index.ts';

/** Rows of a raw query on either driver: PGlite answers `{ rows }`, postgres.js an array of rows. */
export async function selectRows<T>(db: Db, query: SQL): Promise<T[]> {
  const result: unknown = await db.execute(query);
  if (Array.isArray(result)) return result as T[];
  return (result as { rows: T[] }).rows;
}
