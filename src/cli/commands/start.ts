import { parseArgs } from 'node:util';
import { startKazma } from '../../main.ts';
import { CONFIG_OPTION, EXIT, explain, loadOrExplain, loggerFor, type Subcommand } from '../common.ts';

export const start: Subcommand = {
  summary: 'run Kazma (database, Redis, HTTP, enabled platforms) until SIGTERM/SIGINT',
  usage: `Usage: kazma start [--config FILE]

Runs Kazma with the configuration in FILE (default: $KAZMA_CONFIG or ./kazma.yaml; none = defaults).
With no database.url it uses the embedded PGlite under data_dir; with no redis.url it uses
127.0.0.1:6379 or starts a private redis-server. SIGTERM/SIGINT stop it gracefully (exit 0).`,
  run: (args) => runUntilSignal(args, 'all'),
};

/** Starts Kazma in `role` and runs it until SIGTERM/SIGINT, then stops it gracefully (exit 0). */
export async function runUntilSignal(args: string[], role: 'all' | 'worker'): Promise<number> {
  const { values } = parseArgs({ args, options: CONFIG_OPTION });
  try {
    const loaded = loadOrExplain(values.config);
    const logger = loggerFor(loaded);
    const kazma = await startKazma({ loaded, logger, role });
    logger.info({ port: kazma.http.port, role }, role === 'worker' ? 'kazma worker started' : 'kazma started');
    await new Promise<void>((resolve) => {
      const onSignal = (signal: NodeJS.Signals) => {
        logger.info({ signal }, 'stopping');
        resolve();
      };
      process.once('SIGTERM', onSignal);
      process.once('SIGINT', onSignal);
    });
    await kazma.stop();
    logger.info('stopped');
    return EXIT.ok;
  } catch (error) {
    return explain(error);
  }
}
