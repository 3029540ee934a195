// The database Kazma runs on: the configured PostgreSQL, or the embedded PGlite under data_dir; the same
// migrations (plus the checkpointer's setup) applied to either at start.
import type { LoadedConfig } from './core/config/index.ts';
import { prepareDataDir } from './core/data-dir.ts';
import { migrateDatabase, openDatabase, type Database } from './core/db/index.ts';

/** Opens the configured database (creating data_dir first) without migrating it. */
export function openConfiguredDatabase(loaded: LoadedConfig, options: OpenConfiguredOptions = {}): Promise<Database> {
  prepareDataDir(loaded.config.data_dir);
  return openDatabase({ url: loaded.config.database.url, dataDir: loaded.config.data_dir, ...options });
}

export interface OpenConfiguredOptions {
  /** The command may run beside a Kazma that owns data_dir: go through its socket (core/db OpenDatabaseOptions). */
  besideOwner?: boolean;
}

/**
 * Opens and migrates the configured database (the SQL migrations, then the checkpointer's setup()); close it when done.
 */
export async function openMigratedDatabase(
  loaded: LoadedConfig,
  options: OpenConfiguredOptions = {},
): Promise<Database> {
  // The checkpointer's module (LangGraph's saver, node-postgres: ~0.5 s to load) loads while the database
  // connects and checks its migrations, instead of before; its setup() is the last migration step.
  const checkpointer = import('./core/agent/checkpoint/checkpointer.ts');
  checkpointer.catch(() => {}); // a failed import is reported where it is awaited, not as an unhandled rejection
  const database = await openConfiguredDatabase(loaded, options);
  try {
    await migrateDatabase(database, [async (db) => (await checkpointer).checkpointerSetupStep(db)]);
    return database;
  } catch (error) {
    await database.close();
    throw error;
  }
}
