import { parseArgs } from 'node:util';
import { type RunningKazma, startKazma } from '../../main.ts';
import { CONFIG_OPTION, EXIT, explain, loadOrExplain, loggerFor, type Subcommand } from '../common.ts';
import { listenForStop } from '../stop-reasons.ts';

export const start: Subcommand = {
  summary: 'run Kazma (database, Redis, HTTP, enabled platforms) until SIGTERM/SIGINT',
  usage: `Usage: kazma start [--config FILE]

Runs Kazma with the configuration in FILE (default: $KAZMA_CONFIG or ./kazma.yaml; none = defaults).
With no database.url it uses the embedded PGlite under data_dir; with no redis.url it uses
127.0.0.1:6379 or starts a private redis-server. SIGTERM/SIGINT stop it gracefully (exit 0); one during
the start stops it once the start is over (a second one ends it at once). An error nothing caught (a
bug) is logged at fatal, then Kazma stops the same way and exits 1.`,
  run: (args) => runUntilSignal(args, 'all'),
};

/**
 * Starts Kazma in `role` and runs it until SIGTERM/SIGINT, then stops it gracefully (exit 0); an error
 * nothing caught stops it the same way, with exit 1 (stop-reasons.ts).
 */
export async function runUntilSignal(args: string[], role: 'all' | 'worker'): Promise<number> {
  const { values } = parseArgs({ args, options: CONFIG_OPTION });
  try {
    const loaded = loadOrExplain(values.config);
    const logger = loggerFor(loaded);
    // Listening before the start: a signal during it (a recovery waiting on Redis, a large data dir) stops
    // Kazma gracefully once the start is over, instead of Node's default of ending the process mid-start.
    const reasons = listenForStop(logger);
    let kazma: RunningKazma;
    try {
      kazma = await startKazma({ loaded, logger, role });
    } catch (error) {
      reasons.dispose();
      throw error;
    }
    logger.info({ port: kazma.http.port, role }, role === 'worker' ? 'kazma worker started' : 'kazma started');
    const reason = await reasons.first;
    try {
      await kazma.stop();
      logger.info('stopped');
    } finally {
      reasons.dispose();
    }
    return reason.kind === 'signal' ? EXIT.ok : EXIT.failure;
  } catch (error) {
    return explain(error);
  }
}
