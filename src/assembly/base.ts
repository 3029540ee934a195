// The ground every module stands on, in order: database → vault (config pointers) → Redis → the job driver →
// surfaces and the outbox. Whatever this opens is closed at stop through the lifecycle.
import { createHash, randomUUID } from 'node:crypto';
import type { Clock } from '../core/clock.ts';
import type { LoadedConfig } from '../core/config/index.ts';
import { redactUrl, type Database } from '../core/db/index.ts';
import { JobKinds } from '../core/jobs/index.ts';
import { Meter } from '../core/metrics/index.ts';
import { JobOutboxDispatcher, outboxDeliveryJob, ReplyOutbox } from '../core/outbox/index.ts';
import { SurfaceRegistry } from '../core/surface/index.ts';
import { createVault } from '../core/vault/module.ts';
import { watchDependencies } from '../dependencies.ts';
import { BullJobDriver, connectRedis } from '../jobs/index.ts';
import type { Lifecycle } from '../lifecycle.ts';
import { openMigratedDatabase } from '../storage.ts';
import type { AssembleOptions } from './options.ts';

export type Base = Awaited<ReturnType<typeof openBase>>;

export async function openBase(options: AssembleOptions, lifecycle: Lifecycle, clock: Clock) {
  const { loaded, logger } = options;
  const { config } = loaded;
  const database =
    options.database ??
    (await (options.early?.database ?? openMigratedDatabase(loaded, { besideOwner: options.besideOwner === true })));
  if (!options.database) lifecycle.onStop('database', () => database.close());
  // This process owns the embedded database for as long as it runs: the CLI's commands reach it through it.
  await database
    .serveLocalClients?.()
    .catch((error: unknown) =>
      logger.warn({ err: error }, 'the embedded database is not served to other commands; stop Kazma to run them'),
    );
  logger.info({ kind: database.kind, ...(database.sharesSession && { through: 'owner socket' }) }, 'database ready');
  // Right after the database: vault:// pointers in the configuration become their secrets before any
  // module (Redis included) reads it; an unresolvable one stops the start, naming its key.
  const vault = await createVault({ loaded, db: database.db, logger });
  const redis =
    options.redis ??
    (await connectRedis({ url: config.redis.url, dataDir: config.data_dir, path: loaded.env.PATH, logger }));
  if (!options.redis) lifecycle.onStop('redis', () => redis.close());
  logger.info({ where: redis.where }, 'redis ready');

  // Names this process in lease columns, so a lease it stops renewing can be told from one it holds.
  const processName = `${process.pid}-${randomUUID().slice(0, 8)}`;
  const kinds = new JobKinds();
  // A database or Redis outage is said once, with the address and what waits, and once when it ends.
  const deps = watchDependencies({ loaded, database, redis, logger, clock });
  const jobs = new BullJobDriver({
    connection: redis.options,
    prefix: options.queuePrefix ?? queuePrefix(loaded, database),
    kinds,
    concurrency: config.jobs.concurrency,
    stalledAfterMs: config.jobs.lease_ttl,
    logger,
    outage: deps.redisOutage,
    onJobFailed: (error) => deps.dbFailed(error, () => undefined),
  });
  lifecycle.onStop('jobs', async () => {
    deps.stop();
    await jobs.close();
  });
  // One registry per process: its backlog gauges read the database and the queues when scraped.
  const meter = new Meter({ sources: { db: database.db, jobs }, tracing: { content: config.tracing.content } });
  const surfaces = new SurfaceRegistry();
  const delivery = outboxDeliveryJob({ db: database.db, surfaces, clock, queue: jobs });
  kinds.register(delivery);
  const outbox = new JobOutboxDispatcher({ queue: jobs, kind: delivery, db: database.db, surfaces, logger });
  // Every process (workers too) tells the database when it dispatches: the web page of every other
  // process on it redraws (LISTEN/NOTIFY on PostgreSQL; PGlite has one process and needs none).
  const { changes } = database;
  if (changes) outbox.watch(() => changes.notify());
  const replies = new ReplyOutbox({ db: database.db, surfaces, dispatcher: outbox, clock, logger });
  return { database, vault, redis, processName, kinds, deps, jobs, meter, surfaces, outbox, replies };
}

/**
 * BullMQ key prefix: processes sharing a database share queues (so a sweep or a delivery runs once
 * across them), while two installs on one Redis stay apart.
 */
export function queuePrefix(loaded: LoadedConfig, database: Pick<Database, 'kind' | 'sharesSession'>): string {
  // Through the owner's socket the database is still data_dir's embedded one: the owner's queues.
  const identity =
    database.kind === 'postgres' && !database.sharesSession
      ? redactUrl(loaded.config.database.url)
      : loaded.config.data_dir;
  return `kazma-${createHash('sha256').update(identity).digest('hex').slice(0, 10)}`;
}
