// A second drizzle handle on a test database that keeps the text of every statement it sends, so a test
// (or bench/approvals.ts) can count a decision's round trips on PGlite and PostgreSQL alike. The count
// is drizzle's own logger: every statement drizzle sends, whatever the driver.
import { drizzle as drizzlePglite } from 'drizzle-orm/pglite';
import { drizzle as drizzlePostgres } from 'drizzle-orm/postgres-js';
import postgres from 'postgres';
import type { Db } from '../../src/core/db/index.ts';
import * as schema from '../../src/core/db/schema/index.ts';
import type { FreshDatabase } from '../helpers/databases.ts';

export interface CountingDb {
  db: Db;
  /** Every statement sent since the last `reset()`, oldest first. */
  statements: string[];
  reset(): void;
  /** Closes the handle's own pool (PostgreSQL); the database itself stays. */
  close(): Promise<void>;
}

/** A counting handle on `database`; on PostgreSQL its own pool of `poolSize` (default 20, as the tests' handle). */
export function countingDb(database: FreshDatabase, poolSize = 20): CountingDb {
  const statements: string[] = [];
  const logger = { logQuery: (query: string) => void statements.push(query) };
  const reset = () => void (statements.length = 0);
  if (database.pglite) {
    return {
      db: drizzlePglite({ client: database.pglite, schema, logger }) as unknown as Db,
      statements,
      reset,
      close: async () => {},
    };
  }
  if (!database.url) throw new Error('countingDb needs a PGlite instance or a PostgreSQL URL');
  const client = postgres(database.url, { max: poolSize, onnotice: () => {} });
  return {
    db: drizzlePostgres({ client, schema, logger }) as unknown as Db,
    statements,
    reset,
    close: () => client.end({ timeout: 5 }),
  };
}
