// The two services every process depends on, as the composition root watches them: where each is
// (for people), whether it answers (for /readyz), and its outages said once in the log. A database that
// answers but cannot write, its disk full, is not ready either (core/db/disk-space.ts).
import type { Clock } from './core/clock.ts';
import type { LoadedConfig } from './core/config/index.ts';
import { DiskSpace, isConnectionError, redactUrl, type Database } from './core/db/index.ts';
import { type Logger, OutageLog } from './core/log/index.ts';
import { withTimeout } from './core/with-timeout.ts';
import type { RedisHandle } from './jobs/index.ts';

/** What {@link watchDependencies} returns. */
export interface Dependencies {
  dbOutage: OutageLog;
  redisOutage: OutageLog;
  /**
   * A failed background database call: a lost connection goes to the outage log; anything else runs `otherwise`
   * (default a warning).
   */
  dbFailed(error: unknown, otherwise?: () => void): void;
  /** Tells `listener` each time the database answers again after an outage the log said. */
  onDatabaseBack(listener: () => void): void;
  /** /readyz's checks, failing in plain words ("unreachable at redis://127.0.0.1:6379", "only 3 MB free in …"). */
  readiness: Record<'database' | 'disk' | 'redis', () => Promise<void>>;
  stop(): void;
}

export function watchDependencies({
  loaded,
  database,
  redis,
  logger,
  clock,
}: {
  loaded: LoadedConfig;
  database: Database;
  redis: RedisHandle;
  logger: Logger;
  clock: Clock;
}): Dependencies {
  const { config } = loaded;
  const disk = new DiskSpace({ clock, ...(database.kind === 'pglite' && { dataDir: config.data_dir }) });
  const unwatch = database.onStatementError((error) => {
    const refused = disk.saw(error);
    if (refused) logger.error({ err: refused }, "the database's disk is full: writes are refused until space is freed");
  });
  const dbWhere =
    database.kind === 'pglite'
      ? `embedded PGlite in ${config.data_dir}`
      : redactUrl(database.url ?? config.database.url);
  const databaseBack = new Set<() => void>();
  const dbOutage = new OutageLog({
    onBack: () => {
      for (const listener of databaseBack) listener();
    },
    logger,
    what: 'the database',
    where: dbWhere,
    ping: () => database.ping(),
    waiting: 'new messages are refused (the platforms deliver them again), and sweeps and background work wait',
  });
  const redisOutage = new OutageLog({
    logger,
    what: 'redis',
    where: redis.where,
    ping: () => redis.ping(),
    waiting:
      'card and reply deliveries, sweeps, background tasks and reminders wait (nothing is lost: they are in the ' +
      'database)',
  });
  return {
    dbOutage,
    redisOutage,
    onDatabaseBack: (listener) => void databaseBack.add(listener),
    dbFailed: (error, otherwise) => {
      if (isConnectionError(error)) dbOutage.failed(error);
      else (otherwise ?? (() => logger.warn({ err: error }, 'a background database call failed')))();
    },
    readiness: {
      database: plainCheck(() => database.ping(), database.kind === 'pglite' ? `(${dbWhere})` : `at ${dbWhere}`),
      disk: () => disk.check(),
      redis: plainCheck(() => redis.ping(), `at ${redis.where}`),
    },
    stop: () => {
      unwatch();
      dbOutage.stop();
      redisOutage.stop();
    },
  };
}

/** A readiness check whose failure reads plainly (the client's own words go to the log). */
function plainCheck(ping: () => Promise<void>, where: string): () => Promise<void> {
  // Inside /readyz's own 2 s limit, so a hang reads as "unreachable at …" too.
  return () =>
    withTimeout(ping(), 1_800).catch(() => {
      throw new Error(`unreachable ${where}`);
    });
}
