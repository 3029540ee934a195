import { mkdirSync } from 'node:fs';
import { HttpServer } from './adapters/http/index.ts';
import { checkpointerSetupStep } from './core/agent/checkpointer.ts';
import type { LoadedConfig } from './core/config/index.ts';
import { migrateDatabase, openDatabase, type Database, type MigrationStep } from './core/db/index.ts';
import { createKazmaCore, type KazmaCore } from './core/kazma-core.ts';
import type { Logger } from './core/log/index.ts';
import type { ToolDefinition } from './core/tools/define.ts';
import { connectRedis, type RedisHandle } from './jobs/redis.ts';
import { Lifecycle } from './lifecycle.ts';

export interface StartKazmaOptions {
  loaded: LoadedConfig;
  logger: Logger;
  /** Tools registered after the built-ins (plugins; a test's own tools). */
  tools?: ToolDefinition[];
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
export async function startKazma({ loaded, logger, tools }: StartKazmaOptions): Promise<RunningKazma> {
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

    const core = await createKazmaCore({ loaded, database, logger, ...(tools && { tools }) });
    // Leaves a little of shutdown.timeout for the steps after it (redis, database).
    lifecycle.onStop('core', () => core.stop(Math.max(500, config.shutdown.timeout - 1500)));

    const http = new HttpServer({
      host: config.http.host,
      port: config.http.port,
      logger,
      checks: { database: () => database.ping(), redis: () => redis.ping() },
    });
    await http.listen();
    lifecycle.onStop('http', () => http.close());
    return { loaded, database, redis, http, core, stop };
  } catch (error) {
    await stop();
    throw error;
  }
}

function openConfiguredDatabase(loaded: LoadedConfig): Promise<Database> {
  return openDatabase({ url: loaded.config.database.url, dataDir: loaded.config.data_dir });
}
