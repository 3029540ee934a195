// The `kazma` command's entry into the program: start (assemble and run) or only migrate.
import { assembleKazma, type AssembleOptions, type RunningKazma } from './assemble.ts';
import type { LoadedConfig } from './core/config/index.ts';
import { openMigratedDatabase } from './storage.ts';

export type { RunningKazma } from './assemble.ts';

/** Opens the database and applies migrations, then closes it: `kazma migrate`. */
export async function migrateOnly(loaded: LoadedConfig): Promise<void> {
  const database = await openMigratedDatabase(loaded);
  await database.close();
}

/** Starts Kazma as configured (`kazma start`, `kazma chat`). */
export function startKazma(options: AssembleOptions): Promise<RunningKazma> {
  return assembleKazma(options);
}
