// The database Kazma runs on: the configured PostgreSQL, or the embedded PGlite under data_dir; the same
// migrations (plus the checkpointer's setup) applied to either at start.
import { mkdirSync } from 'node:fs';
import { checkpointerSetupStep } from './core/agent/checkpointer.ts';
import type { LoadedConfig } from './core/config/index.ts';
import { migrateDatabase, openDatabase, type Database, type MigrationStep } from './core/db/index.ts';

/** Extra steps run at migrate time, after the SQL migrations (e.g. the checkpointer's setup()). */
export const migrationSteps: MigrationStep[] = [checkpointerSetupStep];

/** Opens the configured database (creating data_dir first) without migrating it. */
export function openConfiguredDatabase(loaded: LoadedConfig): Promise<Database> {
  mkdirSync(loaded.config.data_dir, { recursive: true });
  return openDatabase({ url: loaded.config.database.url, dataDir: loaded.config.data_dir });
}

/** Opens and migrates the configured database; close it when done. */
export async function openMigratedDatabase(loaded: LoadedConfig): Promise<Database> {
  const database = await openConfiguredDatabase(loaded);
  try {
    await migrateDatabase(database, migrationSteps);
    return database;
  } catch (error) {
    await database.close();
    throw error;
  }
}
