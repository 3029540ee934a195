import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { PGlite } from '@electric-sql/pglite';
import { sql } from 'drizzle-orm';
import type { PgDatabase, PgQueryResultHKT } from 'drizzle-orm/pg-core';
import { StartupError } from '../errors.ts';
import { DataDirLockedError, lockDataDir, type DataDirLock } from './data-dir-lock.ts';
import {
  EMBEDDED_SOCKET_PORT,
  embeddedSocketDir,
  embeddedSocketPath,
  serveEmbeddedDatabase,
  type EmbeddedServer,
} from './embedded-server.ts';
import { withPreparedQueries } from './pglite-prepared.ts';
import { DEFAULT_UPKEEP_INTERVAL_MS, startPgliteUpkeep } from './pglite-upkeep.ts';
import { type ChangeSignal, pgChangeSignal } from './change-signal.ts';
import { pgStopSignal, type StopSignal } from './stop-signal.ts';
import { innermostMessage, postgresCause, redactUrl } from './postgres-causes.ts';
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
   * True through another Kazma's embedded database (its socket): every connection is that process's one
   * session, so names a library prepares must be this process's own (the checkpointer's).
   */
  readonly sharesSession?: boolean;
  /**
   * The embedded database only, opened from a data_dir: serves it to this machine's other Kazma commands
   * (embedded-server.ts) until close. A long-running owner (`start`, `chat`) calls it; a one-off command not.
   */
  serveLocalClients?(): Promise<void>;
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
  /** PostgreSQL only: `/stop` asking the process that runs a thread's turn (stop-signal.ts). */
  readonly stops?: StopSignal;
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
  /**
   * A command that may run beside the Kazma owning data_dir (the admin CLI, `kazma chat`): the embedded
   * database is then reached through the socket that process serves (embedded-server.ts). Otherwise, and
   * for `start`, `worker` and `migrate`, a locked data_dir stops the command.
   */
  besideOwner?: boolean;
  /** PGlite only: a housekeeping run failed (the next one tries again). */
  onUpkeepError?: (error: unknown) => void;
}

/** Opens PostgreSQL (postgres.js) when a URL is configured, else the embedded PGlite. */
export async function openDatabase(options: OpenDatabaseOptions): Promise<Database> {
  if (options.url) return openPostgres({ url: options.url, max: options.poolSize ?? 10 });
  if (options.pglite) return wrapPglite(options.pglite, undefined, options);
  if (!options.dataDir) throw new StartupError('database_unconfigured', 'Set data_dir or database.url.');
  let lock: DataDirLock;
  try {
    lock = lockDataDir(options.dataDir);
  } catch (error) {
    // Another Kazma owns it: go through the socket it serves the database on, if it does.
    if (error instanceof DataDirLockedError && options.besideOwner)
      return openThroughOwner(options.dataDir, error, options.poolSize);
    throw error;
  }
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
  let served: EmbeddedServer | undefined;
  const dataDir = lock ? options.dataDir : undefined;
  return {
    kind: 'pglite',
    db,
    pglite: client,
    exclusive: (_lockId, fn) => fn(),
    ping: async () => void (await client.query('select 1')),
    onStatementError: (listener) => errors.listen(listener),
    ...(dataDir && {
      serveLocalClients: async () => {
        served ??= await serveEmbeddedDatabase(client, dataDir);
      },
    }),
    close: async () => {
      try {
        await served?.stop();
        await upkeep.stop();
        if (!client.closed) await client.close();
      } finally {
        lock?.release();
      }
    },
  };
}

/** How to reach a PostgreSQL server: a URL, or the socket of a Kazma that serves its embedded database. */
interface PostgresTarget {
  url: string;
  max: number;
  /** The owner's socket directory: one shared session, so statements run unprepared and unlocked. */
  socketDir?: string;
}

async function openPostgres(target: PostgresTarget): Promise<Database> {
  const { url, max, socketDir } = target;
  const { postgresClient: postgres, drizzlePostgres } = await import('./postgres-driver.ts');
  const errors = new StatementErrors();
  const options = {
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
  };
  const raw = socketDir
    ? // Every client of the socket shares the owner's one session: a named statement of one would collide
      // with another's of the same name, so nothing is prepared by name.
      postgres({ ...options, host: socketDir, port: EMBEDDED_SOCKET_PORT, user: 'postgres', prepare: false })
    : preparedByDefault(postgres(url, options));
  const client = reportPostgresErrors(raw, errors);
  const db = drizzlePostgres({ client, schema }) as unknown as Db;
  try {
    await db.execute(sql`select 1`);
  } catch (error) {
    await client.end({ timeout: 1 });
    const cause = postgresCause(error, url);
    throw new StartupError(
      'database_unreachable',
      cause
        ? `PostgreSQL at ${redactUrl(url)}: ${cause}.`
        : `PostgreSQL at ${redactUrl(url)} does not answer (${innermostMessage(error)}). Start it, fix database.url, ` +
            `or unset it to use the embedded database.`,
      { cause: error },
    );
  }
  return {
    kind: 'postgres',
    db,
    url,
    sharesSession: socketDir !== undefined,
    // A transaction holds the lock while fn runs on the pool (reserve() would never resolve on a new
    // connection without fetch_types: porsager/postgres#1219); it ends, and lets go, however fn ends.
    // Through an owner's socket there is no lock to take (advisory locks do not exclude in one shared
    // session) and none needed: the owner applied the migrations, and a transaction there runs alone.
    exclusive: socketDir
      ? (_lockId, fn) => fn()
      : (lockId, fn) =>
          client.begin(async (tx) => {
            await tx`select pg_advisory_xact_lock(${lockId})`;
            return fn();
          }) as Promise<Awaited<ReturnType<typeof fn>>>,
    ping: async () => void (await db.execute(sql`select 1`)),
    onStatementError: (listener) => errors.listen(listener),
    // Through an owner's socket LISTEN is not routed back to its listener (one shared session): none here.
    ...(!socketDir && { changes: pgChangeSignal(client), stops: pgStopSignal(client) }),
    close: () => client.end({ timeout: 5 }),
  };
}

/**
 * The embedded database of the Kazma that holds data_dir's lock, through the socket it serves it on
 * (embedded-server.ts); the lock's error when it serves none, or does not answer.
 */
async function openThroughOwner(dataDir: string, locked: DataDirLockedError, poolSize = 4): Promise<Database> {
  if (!existsSync(embeddedSocketPath(dataDir))) throw locked;
  const socketDir = embeddedSocketDir(dataDir);
  // The URL names the socket directory as its host, which node-postgres (the checkpointer) understands.
  const url = `postgresql://postgres@localhost:${EMBEDDED_SOCKET_PORT}/postgres?host=${encodeURIComponent(socketDir)}`;
  try {
    return await openPostgres({ url, max: Math.min(poolSize, 4), socketDir });
  } catch {
    throw locked;
  }
}
