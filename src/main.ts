import { createHash } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import { approvalsApi } from './adapters/http/approvals-api.ts';
import { HttpServer } from './adapters/http/index.ts';
import { checkpointerSetupStep } from './core/agent/checkpointer.ts';
import type { LoadedConfig } from './core/config/index.ts';
import { SurfaceRegistry } from './core/chat/surfaces.ts';
import type { Surface } from './core/chat/types.ts';
import { migrateDatabase, openDatabase, redactUrl, type Database, type MigrationStep } from './core/db/index.ts';
import { createKazmaCore, type KazmaCore } from './core/kazma-core.ts';
import type { Logger } from './core/log/index.ts';
import type { ToolDefinition } from './core/tools/define.ts';
import { OutboxWorker } from './jobs/outbox-worker.ts';
import { connectRedis, type RedisHandle } from './jobs/redis.ts';
import { Sweeper } from './jobs/sweeper.ts';
import { Lifecycle } from './lifecycle.ts';
import { createPlatforms } from './platforms.ts';

export interface StartKazmaOptions {
  loaded: LoadedConfig;
  logger: Logger;
  /** Tools registered after the built-ins (plugins; a test's own tools). */
  tools?: ToolDefinition[];
  /** Surfaces attached before start-up recovery (the console), so recovered replies and cards reach them. */
  surfaces?: Surface[];
}

/** A running Kazma: its parts, for the CLI (signals) and for tests that start it in-process. */
export interface RunningKazma {
  readonly loaded: LoadedConfig;
  readonly database: Database;
  readonly redis: RedisHandle;
  readonly http: HttpServer;
  /** The agent core: adapters and the console call `core.attachSurface(surface)` and `core.pipeline.handle(event)`. */
  readonly core: KazmaCore;
  /** Graceful stop: intake first, then running work (bounded by shutdown.timeout), then connections. */
  stop(): Promise<void>;
}

/** Extra steps run at migrate time, after the SQL migrations (e.g. the checkpointer's setup()). */
export const migrationSteps: MigrationStep[] = [checkpointerSetupStep];

/** Opens the database and applies migrations, then closes it: `kazma migrate`. */
export async function migrateOnly(loaded: LoadedConfig): Promise<void> {
  const database = await openConfiguredDatabase(loaded);
  try {
    await migrateDatabase(database, migrationSteps);
  } finally {
    await database.close();
  }
}

/** The composition root: config → db (migrate) → redis → core → adapters + workers → http. */
export async function startKazma({ loaded, logger, tools, surfaces: extraSurfaces = [] }: StartKazmaOptions): Promise<RunningKazma> {
  const { config } = loaded;
  const lifecycle = new Lifecycle(logger);
  const stop = () => lifecycle.stop(config.shutdown.timeout);
  try {
    mkdirSync(config.data_dir, { recursive: true });
    const database = await openConfiguredDatabase(loaded);
    lifecycle.onStop('database', () => database.close());
    await migrateDatabase(database, migrationSteps);
    logger.info({ kind: database.kind }, 'database ready');

    const redis = await connectRedis({ url: config.redis.url, dataDir: config.data_dir, path: loaded.env.PATH, logger });
    lifecycle.onStop('redis', () => redis.close());
    logger.info({ where: redis.where }, 'redis ready');

    const queue = { connection: redis.options, prefix: queuePrefix(loaded, database) };
    const surfaces = new SurfaceRegistry();
    const outbox = new OutboxWorker({ db: database.db, surfaces, queue, concurrency: config.jobs.concurrency.outbox, logger });
    lifecycle.onStop('outbox', () => outbox.close());

    const core = await createKazmaCore({ loaded, database, logger, surfaces, outbox, ...(tools && { tools }) });
    for (const surface of extraSurfaces) core.attachSurface(surface);
    // Leaves a little of shutdown.timeout for the steps after it (workers, redis, database).
    lifecycle.onStop('core', () => core.stop(Math.max(500, config.shutdown.timeout - 2500)));

    const http = new HttpServer({
      host: config.http.host,
      port: config.http.port,
      logger,
      checks: { database: () => database.ping(), redis: () => redis.ping() },
    });
    http.app.route('/', approvalsApi({
      readToken: config.http.api_token,
      operators: config.access.operators,
      core: { list: (filter) => core.approvals.list(filter), decide: (input) => core.decide(input) },
    }));
    const platforms = await createPlatforms({ loaded, core, http, logger });
    await http.listen();
    lifecycle.onStop('http', () => http.close());
    for (const platform of platforms) {
      await platform.start();
      lifecycle.onStop(platform.name, () => platform.stop());
    }

    // Surfaces are attached now: what a previous run left undelivered or undecided is finished first.
    await outbox.recover(SENDING_STALE_MS);
    await core.reconciler.sweep();
    // Events a stopped process took in and never finished are taken up now. The embedded database has
    // one owner (the data-dir lock), so every unfinished row is ours; on PostgreSQL another live process
    // may hold some, so only those whose lease has lapsed.
    const turnsStale = config.turns.stale_after;
    const found = await core.pipeline.recover(database.kind === 'pglite' ? 0 : turnsStale);
    if (found > 0) logger.info({ events: found }, 'taking up events a previous run left unfinished');
    const sweeper = new Sweeper({
      queue,
      everyMs: config.runs.sweep_interval,
      logger,
      sweep: async () => {
        await core.reconciler.sweep();
        await outbox.recover(SENDING_STALE_MS);
        await core.pipeline.recover(turnsStale);
        await core.inbox.prune(new Date(Date.now() - config.inbox.retention));
      },
    });
    await sweeper.start();
    lifecycle.onStop('sweeper', () => sweeper.close());
    return { loaded, database, redis, http, core, stop };
  } catch (error) {
    await stop();
    throw error;
  }
}

/** A row in `sending` this long belongs to no live process (no send takes this long). */
const SENDING_STALE_MS = 5 * 60_000;

/**
 * BullMQ key prefix: processes sharing a database share queues (so a sweep or a delivery runs once
 * across them), while two installs on one Redis stay apart.
 */
function queuePrefix(loaded: LoadedConfig, database: Database): string {
  const identity = database.kind === 'postgres' ? redactUrl(loaded.config.database.url) : loaded.config.data_dir;
  return `kazma-${createHash('sha256').update(identity).digest('hex').slice(0, 10)}`;
}

function openConfiguredDatabase(loaded: LoadedConfig): Promise<Database> {
  return openDatabase({ url: loaded.config.database.url, dataDir: loaded.config.data_dir });
}
