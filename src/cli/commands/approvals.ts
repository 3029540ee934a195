import { parseArgs } from 'node:util';
import { approvalRecords, toCsv, toJsonLines } from '../../core/approvals/index.ts';
import { systemClock } from '../../core/clock.ts';
import { parseDuration } from '../../core/config/index.ts';
import { openMigratedDatabase } from '../../storage.ts';
import { CONFIG_OPTION, EXIT, explain, loadOrExplain, type Subcommand } from '../common.ts';

const USAGE = `Usage: kazma approvals export [--since 7d] [--format jsonl|csv] [--config FILE]

Prints the approvals audit: one record per step of every approval question asked since --since (default:
all) — requested, each counted approval, the decision, refusals, losing taps, expiry — with who asked for
what (the exact arguments, secrets masked as the cards mask them), who decided, where, when and under which
policy. JSON Lines by default, or CSV. The same database gives the same bytes, so exports can be diffed.`;

export const approvalsExport: Subcommand = {
  summary: 'print the approvals audit: who asked for what, who decided, where, when (--since 7d, --format csv)',
  usage: USAGE,
  async run(args) {
    const { values } = parseArgs({
      args,
      options: { ...CONFIG_OPTION, since: { type: 'string' }, format: { type: 'string', default: 'jsonl' } },
      strict: true,
    });
    const sinceMs = values.since === undefined ? undefined : parseDuration(values.since);
    if (sinceMs === undefined && values.since !== undefined) {
      process.stderr.write(`kazma approvals export: --since "${values.since}" is not a duration (e.g. 7d, 12h)\n`);
      return EXIT.usage;
    }
    if (values.format !== 'jsonl' && values.format !== 'csv') {
      process.stderr.write(`kazma approvals export: --format is jsonl or csv, not "${values.format}"\n`);
      return EXIT.usage;
    }
    try {
      const loaded = loadOrExplain(values.config);
      const database = await openMigratedDatabase(loaded, { besideOwner: true });
      try {
        const records = await approvalRecords(database.db, {
          ...(sinceMs !== undefined && { since: new Date(systemClock.now().getTime() - sinceMs) }),
          secrets: loaded.secrets,
        });
        process.stdout.write(values.format === 'csv' ? toCsv(records) : toJsonLines(records));
      } finally {
        await database.close();
      }
      return EXIT.ok;
    } catch (error) {
      return explain(error);
    }
  },
};
