// The durable LangGraph checkpointer: PostgresSaver over node-postgres, in its own `langgraph` schema
// (drizzle-kit manages `public` and must never see these tables), on PostgreSQL or in-process PGlite.
//
// In-process PGlite — what was measured (tests/agent/checkpointer/pglite-session.test.ts):
// PGlite is ONE backend session, and `pg.Pool(createPgConfig(pglite))` feeds that session directly
// (`execProtocolStream`), taking none of PGlite's mutexes. Nothing deadlocks, but it is worse: a checkpoint
// write during an open drizzle transaction sent its own BEGIN/COMMIT into the drizzle transaction, so
// COMMIT committed drizzle's half-done work and drizzle's later statements ran outside any transaction;
// rolling the drizzle transaction back then undid nothing. So on PGlite every checkpointer checkout and
// query holds PGlite's transaction mutex (the one `pglite.query/exec/transaction` use): checkpoint writes
// and drizzle transactions take turns, each atomic. The cost is a rule: never await the agent or the
// checkpointer inside a drizzle transaction — that waits on itself. Instead of hanging, such a call fails
// after `lockTimeoutMs` with CheckpointerBusyError.
import type { PGlite } from '@electric-sql/pglite';
import pg from 'pg';
import type { Database, MigrationStep } from '../../db/index.ts';
import { KazmaError, StartupError } from '../../errors.ts';
import { BatchedPostgresSaver } from './batched-saver.ts';

/** The PostgreSQL schema holding `checkpoints`, `checkpoint_blobs`, `checkpoint_writes`, `checkpoint_migrations`. */
export const CHECKPOINTER_SCHEMA = 'langgraph';

export interface CheckpointerOptions {
  /** node-postgres pool size on PostgreSQL; default 4. PGlite always has one session. */
  poolSize?: number;
  /** PGlite only: how long a checkpointer call waits for a drizzle transaction to finish; default 30 000 ms. */
  lockTimeoutMs?: number;
  /** Called when an idle pooled connection fails (e.g. PostgreSQL restarted); the pool reconnects by itself. */
  onPoolError?: (error: Error) => void;
}

export interface Checkpointer {
  readonly saver: BatchedPostgresSaver;
  /** The saver's pool, for the checkpoint tables' upkeep (checkpoint-retention.ts). */
  readonly pool: Pick<pg.Pool, 'query'>;
  /** Closes the checkpointer's own pool; the Database (and its PGlite) stays open. */
  close(): Promise<void>;
}

/** On PGlite, a checkpointer call could not get the database in time; usually it was called inside a transaction. */
export class CheckpointerBusyError extends KazmaError {
  constructor(waitedMs: number) {
    super(
      'checkpointer_busy',
      `The embedded database stayed inside another transaction for ${waitedMs} ms, so the checkpoint could not be ` +
        'read or written. Do not run the agent or the checkpointer inside a database transaction: on PGlite both ' +
        'share one session and take turns.',
    );
  }
}

/**
 * Opens the checkpointer on `database`. Does NOT create its tables: pass `checkpointerSetupStep` to
 * `migrateDatabase` (setup() is not safe to run concurrently). Fails when the tables are missing.
 * @example
 * await migrateDatabase(database, [checkpointerSetupStep]);
 * const { saver, close } = await createCheckpointer(database);
 * const graph = builder.compile({ checkpointer: saver });
 */
export async function createCheckpointer(database: Database, options: CheckpointerOptions = {}): Promise<Checkpointer> {
  const checkpointer = await openCheckpointer(database, options);
  try {
    const { rows } = await checkpointer.pool.query<{ found: string | null }>('select to_regclass($1) as found', [
      `${CHECKPOINTER_SCHEMA}.checkpoint_migrations`,
    ]);
    if (!rows[0]?.found) {
      throw new StartupError(
        'checkpointer_not_set_up',
        `The LangGraph checkpoint tables (schema "${CHECKPOINTER_SCHEMA}") are missing. Run \`kazma migrate\` first.`,
      );
    }
  } catch (error) {
    await checkpointer.close();
    throw error;
  }
  return { saver: checkpointer.saver, pool: checkpointer.pool, close: checkpointer.close };
}

/** Creates or upgrades the checkpoint tables; for `migrateDatabase`, whose lock serialises it on PostgreSQL. */
export const checkpointerSetupStep: MigrationStep = async (database) => {
  const checkpointer = await openCheckpointer(database, {});
  try {
    await checkpointer.saver.setup();
  } finally {
    await checkpointer.close();
  }
};

interface OpenCheckpointer extends Checkpointer {
  readonly pool: pg.Pool;
}

async function openCheckpointer(database: Database, options: CheckpointerOptions): Promise<OpenCheckpointer> {
  const pool = database.pglite
    ? await pglitePool(database.pglite, options.lockTimeoutMs ?? 30_000)
    : postgresPool(database, options);
  const saver = new BatchedPostgresSaver(pool, CHECKPOINTER_SCHEMA, {
    prepared: true,
    sessionShared: database.pglite !== undefined || database.sharesSession === true,
  });
  return { saver, pool, close: () => pool.end() };
}

function postgresPool(database: Database, options: CheckpointerOptions): pg.Pool {
  if (!database.url)
    throw new StartupError('checkpointer_no_url', 'The PostgreSQL database has no URL for the checkpointer.');
  const pool = new pg.Pool({
    connectionString: database.url,
    max: options.poolSize ?? 4,
    connectionTimeoutMillis: 10_000,
  });
  // An idle client's error is emitted on the pool; unhandled, it would crash the process.
  pool.on('error', (error) => options.onPoolError?.(error));
  return pool;
}

/**
 * A pg.Pool look-alike over the in-process PGlite, with the part of the pg.Pool API PostgresSaver uses
 * (connect/release, query, end). Each checkout and each query holds PGlite's transaction mutex; see the top.
 */
async function pglitePool(pglite: PGlite, lockTimeoutMs: number): Promise<pg.Pool> {
  // PGlite's node-postgres bridge, loaded only for the embedded database.
  const { pgConfigOf: createPgConfig } = await import('./pglite-bridge.ts');
  // One session, so one client; idleTimeoutMillis 0 keeps it, since createPgConfig hands every client the same
  // connection.
  const inner = new pg.Pool({ ...createPgConfig(pglite), max: 1, idleTimeoutMillis: 0 });
  inner.on('error', () => {}); // an in-process "connection" has no network to fail
  // Calls under way when the pool is ended (LangGraph can still be writing an aborted run's checkpoint while
  // Kazma stops) finish first: ended under them, pg-pool never settles a waiting call, and the call would
  // hold PGlite's mutex for good — every later query of the process, on any handle, would wait forever.
  const running = new Set<Promise<unknown>>();
  const tracked = <T>(call: Promise<T>): Promise<T> => {
    running.add(call);
    void call.then(
      () => running.delete(call),
      () => running.delete(call),
    );
    return call;
  };
  const pool = {
    connect: () => tracked(connect()),
    query: (text: string, values?: unknown[]) => tracked(query(text, values)),
    end: async () => {
      await Promise.allSettled([...running]);
      await inner.end();
    },
  };
  async function connect() {
    const unlock = await lockSession(pglite, lockTimeoutMs);
    try {
      const client = await inner.connect();
      let released = false;
      const release = (error?: Error | boolean) => {
        if (released) return;
        released = true;
        client.release(error);
        unlock();
      };
      return { query: client.query.bind(client), release };
    } catch (error) {
      unlock();
      throw error;
    }
  }
  async function query(text: string, values?: unknown[]) {
    const unlock = await lockSession(pglite, lockTimeoutMs);
    try {
      return await inner.query(text, values);
    } finally {
      unlock();
    }
  }
  return pool as unknown as pg.Pool;
}

/**
 * Resolves with an unlock function once this caller holds PGlite's transaction mutex. `_runExclusiveTransaction`
 * is in PGlite's published types but underscored; pglite is pinned, and pglite-session.test.ts guards the behaviour.
 */
function lockSession(pglite: PGlite, timeoutMs: number): Promise<() => void> {
  return new Promise((resolve, reject) => {
    let gaveUp = false;
    const timer = setTimeout(() => {
      gaveUp = true;
      reject(new CheckpointerBusyError(timeoutMs));
    }, timeoutMs);
    void pglite._runExclusiveTransaction(
      () =>
        new Promise<void>((unlock) => {
          clearTimeout(timer);
          if (gaveUp)
            unlock(); // our caller already failed; hand the mutex straight on
          else resolve(unlock);
        }),
    );
  });
}
