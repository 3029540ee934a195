// The composition root, and nothing else: each module's factory, in order. src/main.ts (the `kazma`
// command) and every test harness assemble Kazma here, so what is tested is what runs.
import { createHash, randomUUID } from 'node:crypto';
import { approvalsApi } from './adapters/http/approvals-api.ts';
import { HttpServer } from './adapters/http/index.ts';
import { createAgent } from './core/agent/module.ts';
import { createApprovalBroker, createApprovals } from './core/approvals/module.ts';
import { AccessPolicy, ChatQueues, SurfaceRegistry, type Surface } from './core/chat/index.ts';
import { createChat } from './core/chat/module.ts';
import { systemClock, type Clock } from './core/clock.ts';
import { CommandRegistry, helpCommand, statusCommand, uptimeSection } from './core/commands/index.ts';
import type { LoadedConfig } from './core/config/index.ts';
import { redactUrl, type Database } from './core/db/index.ts';
import { ActionRouter } from './core/decisions/actions.ts';
import { FirstDecisionWins } from './core/decisions/first-wins.ts';
import { Questions } from './core/decisions/questions.ts';
import { JobKinds } from './core/jobs/port.ts';
import { SWEEP_SCHEDULE, sweepJob, type SweepStep } from './core/jobs/sweep.ts';
import type { KazmaParts } from './core/kazma-core.ts';
import type { Logger } from './core/log/index.ts';
import { JobOutboxDispatcher, outboxDeliveryJob } from './core/outbox/jobs.ts';
import { ReplyOutbox } from './core/outbox/replies.ts';
import type { ToolDefinition } from './core/tools/define.ts';
import { createSchedules } from './core/schedules/module.ts';
import { createSettings } from './core/settings/module.ts';
import { createTasks } from './core/tasks/module.ts';
import { createTools } from './core/tools/module.ts';
import { BullJobDriver } from './jobs/driver.ts';
import { connectRedis, type RedisHandle } from './jobs/redis.ts';
import { Lifecycle } from './lifecycle.ts';
import { withTimeout } from './core/with-timeout.ts';
import { createPlatforms, type PlatformTuning, type RunningPlatform } from './platforms.ts';
import { openMigratedDatabase } from './storage.ts';

/** Options for {@link assembleKazma}; everything but `loaded` and `logger` has a default. */
export interface AssembleOptions {
  loaded: LoadedConfig;
  logger: Logger;
  /** Tools registered after the built-ins (plugins; a test's own tools). */
  tools?: readonly ToolDefinition[];
  /** Surfaces attached before start-up recovery (the console, a test's recording surface). */
  surfaces?: readonly Surface[];
  /** A database already open and migrated (tests); it is not closed at stop. Default: the configured one. */
  database?: Database;
  /** A Redis already answering (tests); it is not closed at stop. Default: `redis.url`, else local, else private. */
  redis?: RedisHandle;
  /** BullMQ key prefix. Default: from the database's identity, so processes sharing a database share queues. */
  queuePrefix?: string;
  clock?: Clock;
  /** Adapter timings an operator or a test tunes. */
  tuning?: PlatformTuning;
  /**
   * `all` (`kazma start`): platforms, HTTP, every job lane. `worker` (`kazma worker`): background tasks
   * only — no platform connections, HTTP for health only, no chat recovery; cards and replies it writes
   * are delivered by the processes that hold the platforms.
   */
  role?: 'all' | 'worker';
}

/** A running Kazma: its parts, for the CLI (signals) and for tests that run it in-process. */
export interface RunningKazma {
  readonly loaded: LoadedConfig;
  readonly database: Database;
  readonly redis: RedisHandle;
  readonly http: HttpServer;
  readonly core: KazmaParts;
  readonly platforms: readonly RunningPlatform[];
  /** Graceful stop: intake first, then running work (bounded by shutdown.timeout), then connections. */
  stop(): Promise<void>;
}

/** Builds and starts Kazma: storage → jobs → core modules → HTTP → platforms → recovery → sweeps. */
export async function assembleKazma(options: AssembleOptions): Promise<RunningKazma> {
  const { loaded, logger } = options;
  const { config } = loaded;
  const clock = options.clock ?? systemClock;
  const worker = options.role === 'worker';
  const lifecycle = new Lifecycle(logger);
  const stop = () => lifecycle.stop(config.shutdown.timeout);
  try {
    const database = options.database ?? (await openMigratedDatabase(loaded));
    if (!options.database) lifecycle.onStop('database', () => database.close());
    logger.info({ kind: database.kind }, 'database ready');
    const redis = options.redis ?? (await connectRedis({ url: config.redis.url, dataDir: config.data_dir, path: loaded.env.PATH, logger }));
    if (!options.redis) lifecycle.onStop('redis', () => redis.close());
    logger.info({ where: redis.where }, 'redis ready');

    // Names this process in lease columns, so a lease it stops renewing can be told from one it holds.
    const processName = `${process.pid}-${randomUUID().slice(0, 8)}`;
    const kinds = new JobKinds();
    const jobs = new BullJobDriver({ connection: redis.options, prefix: options.queuePrefix ?? queuePrefix(loaded, database), kinds, concurrency: config.jobs.concurrency, logger });
    lifecycle.onStop('jobs', () => jobs.close());
    const surfaces = new SurfaceRegistry();
    const delivery = outboxDeliveryJob({ db: database.db, surfaces });
    kinds.register(delivery);
    const outbox = new JobOutboxDispatcher({ queue: jobs, kind: delivery, db: database.db, surfaces, logger });
    const replies = new ReplyOutbox({ db: database.db, surfaces, dispatcher: outbox, logger });

    const access = new AccessPolicy({ access: config.access, approvals: config.approvals });
    const queues = new ChatQueues();
    const actions = new ActionRouter();
    const commands = new CommandRegistry();
    const tools = await createTools({ loaded, logger, ...(options.tools && { extra: options.tools }) });
    const decisions = new FirstDecisionWins({ db: database.db, outbox, surfaces, logger });
    const questions = new Questions({ db: database.db, decisions, clock, mayDecide: (_kind, actor) => access.operatorRefusal(actor), operatorName: (actor) => access.operatorOf(actor)?.name });
    actions.register('q', questions);
    const broker = createApprovalBroker({ loaded, db: database.db, decisions, access, clock, logger });
    const agent = await createAgent({ loaded, processName, database, tools, broker, surfaces, replies, clock, logger });
    const tasks = createTasks({ db: database.db, registry: tools.registry, runner: agent.runner, broker, jobs, kinds, outbox, replies, access, logger });
    const schedules = createSchedules({ loaded, db: database.db, jobs, kinds, outbox, tasks: tasks.tasks, registry: tools.registry, access, clock, logger });
    // After every module that registers tools: the saved on/off switches apply to all of them.
    const settings = await createSettings({ loaded, db: database.db, registry: tools.registry, commands, access, logger });
    lifecycle.onStop('settings', () => settings.stop());
    const approvals = createApprovals({ loaded, broker, decisions, runner: tasks.resumer, queues, actions, clock, logger });
    const chat = createChat({ loaded, processName, db: database.db, access, commands, runner: agent.runner, actions, surfaces, queues, clock, logger });
    for (const command of [helpCommand, ...agent.commands, statusCommand, ...approvals.commands, ...tasks.commands, ...schedules.commands, settings.command]) commands.register(command);
    commands.addStatus(agent.status).addStatus(approvals.status).addStatus(tasks.status).addStatus(schedules.status).addStatus(uptimeSection(clock));
    const sweeps: SweepStep[] = [approvals.sweep, { name: 'outbox', run: () => outbox.recover(SENDING_STALE_MS) }, chat.sweep];
    kinds.register(sweepJob(() => sweeps, logger));

    const core: KazmaParts = {
      pipeline: chat.pipeline, inbox: chat.inbox, queues, access, commands, actions, surfaces, replies, outbox,
      tools: tools.registry, approvals: broker, decider: approvals.decider, questions, tasks: tasks.tasks, schedules: schedules.schedules, reconciler: approvals.reconciler, runner: agent.runner, threads: agent.threads,
      attachSurface: (surface) => surfaces.attach(surface),
      idle: async () => {
        await queues.idle();
        await outbox.settled();
      },
      stop: (timeoutMs) => stopCore(timeoutMs),
    };
    let stopping: Promise<void> | undefined;
    const stopCore = (timeoutMs: number) => (stopping ??= (async () => {
      chat.pipeline.close();
      // Chat turns and background jobs get the same time to finish; then their turns are stopped. A
      // stopped chat turn is taken up at the next start (inbox); a stopped job fails its attempt and is
      // retried by any worker, continuing its task from the checkpoint.
      const [turns, background] = await Promise.all([
        queues.drain(timeoutMs, () => agent.abort()),
        withTimeout(jobs.closeWorkers(), timeoutMs).then(() => 'drained' as const, async () => {
          agent.abort();
          await jobs.closeWorkers();
          return 'aborted' as const;
        }),
      ]);
      if (turns === 'aborted') logger.warn('turns still running at shutdown were stopped; the next start takes them up');
      if (background === 'aborted') logger.warn('background jobs still running at shutdown were stopped and handed back; another worker (or the next start) continues them');
      chat.inbox.stopHeartbeat();
      await agent.close();
    })());
    for (const surface of options.surfaces ?? []) core.attachSurface(surface);
    // Leaves a little of shutdown.timeout for the steps after it (workers, redis, database).
    lifecycle.onStop('core', () => core.stop(Math.max(500, config.shutdown.timeout - 2500)));

    const http = new HttpServer({ host: config.http.host, port: config.http.port, logger, checks: { database: () => database.ping(), redis: () => redis.ping() } });
    if (!worker) http.app.route('/', approvalsApi({ readToken: config.http.api_token, operators: config.access.operators, core: { list: (f) => broker.list(f), decide: (i) => approvals.decider.decide(i) } }));
    const platforms = worker ? [] : await createPlatforms({ loaded, core, http, logger, ...(options.tuning && { tuning: options.tuning }) });
    await http.listen();
    lifecycle.onStop('http', () => http.close());
    for (const platform of platforms) {
      await platform.start();
      lifecycle.onStop(platform.name, () => platform.stop());
    }

    // Surfaces are attached now: what a previous run left undelivered, undecided or unanswered goes first.
    jobs.startWorkers(worker ? ['swarm'] : undefined);
    if (worker) return { loaded, database, redis, http, core, platforms, stop };
    await outbox.recover(SENDING_STALE_MS);
    await approvals.reconciler.sweep();
    await schedules.schedules.recover();
    // The embedded database has one owner (the data-dir lock), so every unfinished inbound event is ours;
    // on PostgreSQL another live process may hold some, so only those whose lease has lapsed.
    const found = await chat.pipeline.recover(database.kind === 'pglite' ? 0 : config.turns.stale_after);
    if (found > 0) logger.info({ events: found }, 'taking up events a previous run left unfinished');
    await jobs.enqueue(kinds.get('sweep'), {}, { jobId: SWEEP_SCHEDULE, repeat: { everyMs: config.runs.sweep_interval } });
    return { loaded, database, redis, http, core, platforms, stop };
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
export function queuePrefix(loaded: LoadedConfig, database: Pick<Database, 'kind'>): string {
  const identity = database.kind === 'postgres' ? redactUrl(loaded.config.database.url) : loaded.config.data_dir;
  return `kazma-${createHash('sha256').update(identity).digest('hex').slice(0, 10)}`;
}
