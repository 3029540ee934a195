import { parseArgs } from 'node:util';
import { copyDatabase, migrateDatabase, openDatabase, redactUrl } from '../../core/db/index.ts';
import { openMigratedDatabase } from '../../storage.ts';
import { CONFIG_OPTION, EXIT, explain, loadOrExplain, type Subcommand } from '../common.ts';

export const migrateData: Subcommand = {
  summary: 'copy the embedded database (PGlite) into an empty PostgreSQL database',
  usage: `Usage: kazma migrate-data --to postgres://USER:PASSWORD@HOST:PORT/DB [--config FILE]

Moves Kazma from its embedded database (PGlite under data_dir) to PostgreSQL: migrates the target, then
copies every row — conversations and their checkpoints, approvals and grants, tasks, reminders and cron
jobs, memories, settings, the audit — and moves each id sequence on. Stop Kazma first (the data dir's lock
says so otherwise). The target must be empty. Nothing in data_dir is changed: afterwards set
database.url (or DATABASE_URL) to the target and start Kazma.`,
  async run(args) {
    const { values } = parseArgs({ args, options: { ...CONFIG_OPTION, to: { type: 'string' } }, strict: true });
    if (!values.to) {
      console.error('kazma migrate-data: --to is required: the URL of an empty PostgreSQL database');
      return EXIT.usage;
    }
    const loaded = loadOrExplain(values.config);
    if (loaded.config.database.url) {
      console.error(
        'kazma migrate-data: database.url is set, so this Kazma already runs on PostgreSQL; migrate-data copies ' +
          'the embedded database under data_dir: unset database.url (and DATABASE_URL) for this command',
      );
      return EXIT.usage;
    }
    try {
      const from = await openMigratedDatabase(loaded);
      try {
        const to = await openDatabase({ url: values.to, poolSize: 2 });
        try {
          const { checkpointerSetupStep } = await import('../../core/agent/checkpoint/checkpointer.ts');
          await migrateDatabase(to, [checkpointerSetupStep]);
          const copied = await copyDatabase(from, to, (t) => console.log(`copied ${t.name}: ${t.rows} rows`));
          const rows = copied.reduce((sum, t) => sum + t.rows, 0);
          console.log(
            `done: ${rows} rows in ${copied.length} tables copied to ${redactUrl(values.to)}. ` +
              'Set database.url (or DATABASE_URL) to it and start Kazma.',
          );
          return EXIT.ok;
        } finally {
          await to.close();
        }
      } finally {
        await from.close();
      }
    } catch (error) {
      return explain(error);
    }
  },
};
