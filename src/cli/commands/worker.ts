import type { Subcommand } from '../common.ts';
import { runUntilSignal } from './start.ts';

export const worker: Subcommand = {
  summary: 'run background tasks only (no platform connections), beside `kazma start`, until SIGTERM/SIGINT',
  usage: `Usage: kazma worker [--config FILE]

Runs background (swarm) tasks from the shared queue: the same agent, tools and approval gates as
\`kazma start\`, but no platform connections and HTTP for /healthz and /readyz only. Start any number
beside a \`kazma start\` process on the same PostgreSQL (database.url) and Redis (redis.url); the
\`kazma start\` process delivers the cards and answers they write. jobs.concurrency.swarm sets how many
tasks one process runs at once. SIGTERM/SIGINT let running tasks finish (up to shutdown.timeout); one still
running then is stopped and handed back, and another worker continues it from its checkpoint. An error
nothing caught (a bug) is logged at fatal, then the worker stops the same way and exits 1.`,
  run: (args) => runUntilSignal(args, 'worker'),
};
