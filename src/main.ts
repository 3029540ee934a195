// The `kazma` command's entry into the program: start (assemble and run) or only migrate.
import type { AssembleOptions, RunningKazma } from './assemble.ts';
import type { LoadedConfig } from './core/config/index.ts';
import { loadPlatforms } from './platforms.ts';
import { openMigratedDatabase } from './storage.ts';

export type { RunningKazma } from './assemble.ts';

/** Opens the database and applies migrations, then closes it: `kazma migrate`. */
export async function migrateOnly(loaded: LoadedConfig): Promise<void> {
  const database = await openMigratedDatabase(loaded);
  await database.close();
}

/**
 * Starts Kazma as configured (`kazma start`, `kazma chat`, `kazma worker`). Loading Kazma's modules is
 * most of a start (~2 s of CPU), so what waits on something else begins first and runs meanwhile: the
 * database connects and checks its migrations (or PGlite opens), and the enabled platforms' SDKs load.
 */
export async function startKazma(options: AssembleOptions): Promise<RunningKazma> {
  const database = options.database
    ? undefined
    : openMigratedDatabase(options.loaded, { besideOwner: options.besideOwner === true });
  const platforms = options.role === 'worker' ? undefined : loadPlatforms(options.loaded.config);
  // Awaited in assembleKazma; until then a failure must not count as an unhandled rejection (which would
  // end the process before the error is explained). A database opened for a start that fails is closed there.
  database?.catch(() => {});
  platforms?.catch(() => {});
  let assembleKazma: typeof import('./assemble.ts').assembleKazma;
  try {
    ({ assembleKazma } = await import('./assemble.ts'));
  } catch (error) {
    await database?.then(
      (d) => d.close(),
      () => {},
    );
    throw error;
  }
  return assembleKazma({ ...options, early: { ...(database && { database }), ...(platforms && { platforms }) } });
}
