import { parseArgs } from 'node:util';
import { migrateOnly } from '../../main.ts';
import { CONFIG_OPTION, EXIT, explain, loadOrExplain, type Subcommand } from '../common.ts';

export const migrate: Subcommand = {
  summary: 'apply database migrations and exit',
  usage: `Usage: kazma migrate [--config FILE]

Applies pending migrations to the configured database (PostgreSQL, or the embedded PGlite under
data_dir) and exits. Safe to run repeatedly; \`kazma start\` also migrates at start.`,
  async run(args) {
    const { values } = parseArgs({ args, options: CONFIG_OPTION });
    try {
      await migrateOnly(loadOrExplain(values.config));
      console.log('migrations applied');
      return EXIT.ok;
    } catch (error) {
      return explain(error);
    }
  },
};
