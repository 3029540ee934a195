import { join } from 'node:path';
import type { PGlite } from '@electric-sql/pglite';
import { sql } from 'drizzle-orm';
import type { PgDatabase, PgQueryResultHKT } from 'drizzle-orm/pg-core';
import { StartupError } from '../errors.ts';
import { lockDataDir, type DataDirLock } from './data-dir-lock.ts';
import { withPreparedQueries } from './pglite-prepared.ts';
import { DEFAULT_UPKEEP_INTERVAL_MS, startPgliteUpkeep } from './pglite-upkeep.ts';
import { type ChangeSignal, pgChangeSignal } from './change-signal.ts';
import { preparedByDefault } from './prepared-by-default.ts';
import * as schema from './schema/index.ts';
import {
  reportPgliteErrors,
  reportPostgresErrors,
  StatementErrors,
  type StatementErrorListener,
} from './statement-errors.ts';

/** The drizzle handle every repository takes; the same type on PGlite and on PostgreSQL. */
export type Db = PgDatabase<PgQueryResultHKT, typeof schema>;

export interface Database {
  readonly kind: 'pglite' | 'postgres';
  readonly db: Db;
  /** For libraries that speak node-postgres (the LangGraph checkpointer). */
  readonly pglite?: PGlite;
  readonly url?: string;
  /**
   * Runs `fn` while holding a cluster-wide lock named by `lockId` (a session advisory lock on a
   * reserved connection). On PGlite one process owns the database, so `fn` simply runs.
   */
  exclusive<T>(lockId: number, fn: () => Promise<T>): Promise<T>;
  /** Resolves when the database answers a query; rejects otherwise. */
  ping(): Promise<void>;
  /**
   * Tells `listener` of every failed statement of {@link db} (readiness watches for a full disk); returns what removes
   * it.
   */
  onStatementError(listener: StatementErrorListener): () => void;
  /** PostgreSQL only: the cluster-wide "something changed" signal the web page redraws on. */
  readonly changes?: ChangeSignal;
  close(): Promise<void>;
}

export interface OpenDatabaseOptions {
  /** PostgreSQL URL; empty → embedded PGlite. */
  url?: string;
  /** Data directory (PGlite lives in `<dataDir>/pglite`, guarded by a lock file). */
  dataDir?: string;
  /** Use this PGlite instead of opening one (tests: an in-memory copy of a migrated template). */
  pglite?: PGlite;
  /** postgres.js pool size; default 10. */
  poolSize?: number;
  /** PGlite only: how often its tables are vacuumed and analysed (pglite-upkeep.ts); 0: never. Default 10 minutes. */
  upkeepIntervalMs?: number;
  /** PGlite only: a housekeeping run failed (the next one tries again). */
  onUpkeepError?: (error: unknown) => void;
}

/** Opens PostgreSQL (postgres.js) when a URL is configured, else the embedded PGlite. */
export async function openDatabase(options: OpenDatabaseOptions): Promise<Database> {
  if (options.url) return openPostgres(options.url, options.poolSize ?? 10);
  if (options.pglite) return wrapPglite(options.pglite, undefined, options);
  if (!options.dataDir) throw new StartupError('database_unconfigured', 'Set data_dir or database.url.');
  const lock = lockDataDir(options.dataDir);
  try {
    // Each database's driver is loaded only when it is the one configured (PGlite's is several MB of code).
    const { openPglite } = await import('./pglite-open.ts');
    const client = await openPglite(join(options.dataDir, 'pglite'));
    return await wrapPglite(client, lock, options);
  } catch (error) {
    lock.release();
    throw new StartupError(
      'database_open_failed',
      `Could not open the embedded database in ${options.dataDir}: ${(error as Error).message}`,
      { cause: error },
    );
  }
}

async function wrapPglite(
  client: PGlite,
  lock: DataDirLock | undefined,
  options: OpenDatabaseOptions,
): Promise<Database> {
  const { drizzlePglite } = await import('./pglite-driver.ts');
  // Drizzle's statements run prepared, each text parsed and planned once (pglite-prepared.ts).
  const errors = new StatementErrors();
  const db = drizzlePglite({
    client: reportPgliteErrors(withPreparedQueries(client), errors),
    schema,
  }) as unknown as Db;
  const upkeep = startPgliteUpkeep(client, {
    intervalMs: options.upkeepIntervalMs ?? DEFAULT_UPKEEP_INTERVAL_MS,
    onError:
      options.onUpkeepError ??
      ((error) =>
        process.emitWarning(
          `The embedded database's housekeeping (VACUUM) failed; it runs again later: ${(error as Error).message}`,
        )),
  });
  return {
    kind: 'pglite',
    db,
    pglite: client,
    exclusive: (_lockId, fn) => fn(),
    ping: async () => void (await client.query('select 1')),
    onStatementError: (listener) => errors.listen(listener),
    close: async () => {
      try {
        await upkeep.stop();
        if (!client.closed) await client.close();
      } finally {
        lock?.release();
      }
    },
  };
}

async function openPostgres(url: string, max: number): Promise<Database> {
  const { postgresClient: postgres, drizzlePostgres } = await import('./postgres-driver.ts');
  const errors = new StatementErrors();
  const client = reportPostgresErrors(
    preparedByDefault(
      postgres(url, {
        max: Math.max(2, max),
        onnotice: () => {},
        connect_timeout: 10,
        // No array-type catalog query on every new connection: Kazma's tables have no array columns, and
        // postgres.js 3.4.9 drops that query's promise, so a connection lost during it (a restart, a network
        // blip) became an unhandled rejection that ended the process (porsager/postgres#1192, #1223).
        fetch_types: false,
        // postgres.js waits before reconnecting up to 20 s (3^failures / 100 s), so after an outage a query
        // could wait half a minute for a database that is back. Cap the pause at 1 s: Kazma notices at once.
        backoff: (failures: number) => Math.min(0.05 * failures, 1),
      }),
    ),
    errors,
  );
  const db = drizzlePostgres({ client, schema }) as unknown as Db;
  try {
    await db.execute(sql`select 1`);
  } catch (error) {
    await client.end({ timeout: 1 });
    throw new StartupError(
      'database_unreachable',
      `PostgreSQL at ${redactUrl(url)} does not answer (${(error as Error).message}). Start it, fix database.url, ` +
        `or unset it to use the embedded database.`,
      { cause: error },
    );
  }
  return {
    kind: 'postgres',
    db,
    url,
    // A transaction holds the lock while fn runs on the pool (reserve() would never resolve on a new
    // connection without fetch_types: porsager/postgres#1219); it ends, and lets go, however fn ends.
    exclusive: (lockId, fn) =>
      client.begin(async (tx) => {
        await tx`select pg_advisory_xact_lock(${lockId})`;
        return fn();
      }) as Promise<Awaited<ReturnType<typeof fn>>>,
    ping: async () => void (await db.execute(sql`select 1`)),
    onStatementError: (listener) => errors.listen(listener),
    changes: pgChangeSignal(client),
    close: () => client.end({ timeout: 5 }),
  };
}

/** A URL safe to print: the password replaced. */
export function redactUrl(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password) parsed.password = '•••';
    return parsed.toString();
  } catch {
    return '(unparseable URL)';
  }
}
