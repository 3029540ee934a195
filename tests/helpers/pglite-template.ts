import { PGlite } from '@electric-sql/pglite';
import { PGLITE_EXTENSIONS } from '../../src/core/db/pglite-open.ts';
import { checkpointerSetupStep } from '../../src/core/agent/checkpoint/checkpointer.ts';
import { migrateDatabase, openDatabase, type MigrationStep } from '../../src/core/db/index.ts';

/**
 * What every Kazma start runs at migrate time (the composition root passes the same step), so every
 * test database has it too, including the PGlite template.
 */
export const STANDARD_STEPS: MigrationStep[] = [checkpointerSetupStep];

/** An empty PGlite with every migration and standard step applied, as a dump that copies load from. */
export async function buildPgliteTemplate(): Promise<Blob> {
  const base = await PGlite.create({ extensions: PGLITE_EXTENSIONS });
  const database = await openDatabase({ pglite: base });
  await migrateDatabase(database, STANDARD_STEPS);
  const dump = await base.dumpDataDir('none');
  await base.close();
  return dump;
}
