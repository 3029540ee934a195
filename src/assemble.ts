// The composition root, and nothing else: each module's factory, in order. src/main.ts (the `kazma`
// command) and every test harness assemble Kazma here, so what is tested is what runs.
import { createHash, randomUUID } from 'node:crypto';
import { approvalsApi, HttpServer } from './adapters/http/index.ts';
import { createAgent } from './core/agent/module.ts';
import { createApprovalBroker, createApprovals } from './core/approvals/module.ts';
import { AccessPolicy, ChatQueues } from './core/chat/index.ts';
import { ThreadLeases } from './core/turns/index.ts';
import { SurfaceRegistry, type ChatRef, type Surface } from './core/surface/index.ts';
import { createChat } from './core/chat/module.ts';
import { systemClock, type Clock } from './core/clock.ts';
import { CommandRegistry, helpCommand, statusCommand, uptimeSection } from './core/commands/index.ts';
import type { LoadedConfig } from './core/config/index.ts';
import { redactUrl, type Database } from './core/db/index.ts';
import { ActionRouter, FirstDecisionWins, Questions, whoMayAnswer } from './core/decisions/index.ts';
import { JobKinds, SWEEP_SCHEDULE, sweepJob, type SweepStep } from './core/jobs/index.ts';
import type { KazmaParts } from './core/kazma-core.ts';
import type { Logger } from './core/log/index.ts';
import { JobOutboxDispatcher, outboxDeliveryJob, ReplyOutbox } from './core/outbox/index.ts';
import type { ToolDefinition } from './core/tools/index.ts';
import { createRuns } from './core/runs/module.ts';
import { progressStamps, type SupervisorStage, type IncidentRow, watchGates, watchOutbox, watchSchedules, watchTasks, watchTurns } from './core/runs/index.ts';
import { createSchedules } from './core/schedules/module.ts';
import { createMcp } from './core/mcp/module.ts';
import { serverRequestHandler, watchMcp } from './core/mcp/index.ts';
import { createSampler } from './core/agent/index.ts';
import { createCommitment } from './core/commitment/module.ts';
import { createWeb } from './core/web/index.ts';
import { createSettings } from './core/settings/module.ts';
import { createSkills } from './core/skills/module.ts';
import { createAgentSkills } from './core/skills/index.ts';
import { createTasks } from './core/tasks/module.ts';
import { createTools } from './core/tools/module.ts';
import { createVault } from './core/vault/module.ts';
import { BullJobDriver, connectRedis, type RedisHandle } from './jobs/index.ts';
import { Lifecycle } from './lifecycle.ts';
import { withTimeout } from './core/with-timeout.ts';
import { watchDependencies } from './dependencies.ts';
import { createPlatforms, type PlatformFactory, type PlatformTuning, type RunningPlatform } from './platforms.ts';
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
  /** Begun by src/main.ts while this module loads: the configured database opening (closed at stop), the platform adapters loading. */
  early?: { database?: Promise<Database>; platforms?: Promise<PlatformFactory[]> };
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
  /** Told after each committed step of opening an incident (crash tests stop a process between them). */
  onIncidentStage?: (stage: SupervisorStage, incident: IncidentRow) => void | Promise<void>;
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

/** Builds and starts Kazma: storage → vault (config pointers) → jobs → core modules → HTTP → platforms → recovery → sweeps. */
export async function assembleKazma(options: AssembleOptions): Promise<RunningKazma> {
  const { loaded, logger } = options;
  const { config } = loaded;
  const clock = options.clock ?? systemClock;
  // Before anything of this process can touch a row: what the embedded database holds from before then was left by the last run.
  const bootedAt = new Date();
  const worker = options.role === 'worker';
  const lifecycle = new Lifecycle(logger);
  const stop = () => lifecycle.stop(config.shutdown.timeout);
  try {
    const database = options.database ?? (await (options.early?.database ?? openMigratedDatabase(loaded)));
    if (!options.database) lifecycle.onStop('database', () => database.close());
    logger.info({ kind: database.kind }, 'database ready');
    // Right after the database: vault:// pointers in the configuration become their secrets before any
    // module (Redis included) reads it; an unresolvable one stops the start, naming its key.
    const vault = await createVault({ loaded, db: database.db, logger });
    const redis = options.redis ?? (await connectRedis({ url: config.redis.url, dataDir: config.data_dir, path: loaded.env.PATH, logger }));
    if (!options.redis) lifecycle.onStop('redis', () => redis.close());
    logger.info({ where: redis.where }, 'redis ready');

    // Names this process in lease columns, so a lease it stops renewing can be told from one it holds.
    const processName = `${process.pid}-${randomUUID().slice(0, 8)}`;
    const kinds = new JobKinds();
    // A database or Redis outage is said once, with the address and what waits, and once when it ends.
    const deps = watchDependencies({ loaded, database, redis, logger, clock });
    const { dbFailed } = deps;
    const jobs = new BullJobDriver({ connection: redis.options, prefix: options.queuePrefix ?? queuePrefix(loaded, database), kinds, concurrency: config.jobs.concurrency, stalledAfterMs: config.jobs.lease_ttl, logger, outage: deps.redisOutage });
    lifecycle.onStop('jobs', async () => {
      deps.stop();
      await jobs.close();
    });
    const surfaces = new SurfaceRegistry();
    const delivery = outboxDeliveryJob({ db: database.db, surfaces, clock });
    kinds.register(delivery);
    const outbox = new JobOutboxDispatcher({ queue: jobs, kind: delivery, db: database.db, surfaces, logger });
    const replies = new ReplyOutbox({ db: database.db, surfaces, dispatcher: outbox, clock, logger });

    const access = new AccessPolicy({ access: config.access, approvals: config.approvals });
    const queues = new ChatQueues();
    const actions = new ActionRouter();
    const commands = new CommandRegistry();
    const decisions = new FirstDecisionWins({ db: database.db, outbox, surfaces, logger });
    const questions = new Questions({ db: database.db, decisions, clock, logger, mayDecide: whoMayAnswer(access), operatorName: (actor) => access.operatorOf(actor)?.name });
    actions.register('q', questions);
    // Before the tools: the web tools' egress guard and the commitment check (clarify cards are
    // questions) make up authorizeEffect, the one check every call passes before any effect.
    const web = createWeb({ loaded });
    const commitment = createCommitment({ loaded, questions, replies, egress: web.guard });
    const agentSkills = createAgentSkills({ loaded, logger, clock });
    const tools = await createTools({ loaded, logger, clock, authorize: commitment.authorize, extra: [...vault.tools, ...web.tools, ...commitment.tools, ...agentSkills.tools, ...(options.tools ?? [])] });
    const broker = createApprovalBroker({ loaded, db: database.db, decisions, access, clock, logger });
    const progress = progressStamps({ db: database.db, logger });
    // One lease table per process, shared by the chat's turn order and the agent's runs. The embedded
    // database has one process (the data-dir lock), so its leases live in this object's memory and a
    // start begins with none.
    const leases = new ThreadLeases({ db: database.db, owner: processName, ttlMs: config.turns.lease_ttl, solo: database.kind === 'pglite' });
    const agent = await createAgent({ loaded, processName, database, leases, tools, broker, surfaces, replies, clock, logger, progress, onDbError: dbFailed, promptLines: agentSkills.promptLines });
    const tasks = createTasks({ db: database.db, registry: tools.registry, runner: agent.runner, broker, jobs, kinds, outbox, replies, access, clock, logger });
    const schedules = createSchedules({ loaded, db: database.db, jobs, kinds, outbox, tasks: tasks.tasks, registry: tools.registry, access, clock, logger });
    const serverRequests = serverRequestHandler({ questions, destinations: config.approvals.channels as ChatRef[], sample: createSampler(config.model), timeoutMs: config.approvals.timeout });
    const mcp = await createMcp({ loaded, db: database.db, registry: tools.registry, clock, logger, vault: vault.vault, onDbError: dbFailed, serverRequests });
    lifecycle.onStop('mcp', () => mcp.stop());
    // After every built-in tool, so a skill's tool can never take a built-in's name (it is namespaced instead).
    const skills = await createSkills({ loaded, db: database.db, registry: tools.registry, logger, onDbError: dbFailed });
    lifecycle.onStop('skills', () => skills.stop());
    // After every module that registers tools: the saved on/off switches apply to all of them.
    const settings = await createSettings({ loaded, db: database.db, registry: tools.registry, commands, access, logger, mcp: mcp.manager, skills: skills.config, onDbError: dbFailed });
    lifecycle.onStop('settings', () => settings.stop());
    const approvals = createApprovals({ loaded, broker, decisions, runner: tasks.resumer, queues, actions, clock, logger });
    const chat = createChat({ loaded, processName, db: database.db, threadLeases: leases, access, commands, runner: agent.runner, actions, surfaces, queues, clock, logger, progress });
    const runs = createRuns({
      loaded, db: database.db, questions, clock, logger, ...(options.onIncidentStage && { onStage: options.onIncidentStage }),
      kinds: [
        watchTasks(database.db, tasks.tasks), watchTurns(database.db), watchSchedules(database.db, schedules.schedules),
        watchGates(database.db, () => approvals.reconciler.sweep()), watchOutbox(database.db, (ids) => outbox.dispatch(ids)),
        watchMcp(database.db, (name) => mcp.manager.retryNow(name)),
      ],
    });
    for (const command of [helpCommand, ...agent.commands, statusCommand, ...approvals.commands, ...tasks.commands, ...schedules.commands, ...runs.commands, settings.command]) commands.register(command);
    commands.addStatus(agent.status).addStatus(approvals.status).addStatus(tasks.status).addStatus(schedules.status).addStatus(runs.status).addStatus(skills.status).addStatus(uptimeSection(clock));
    const sweeps: SweepStep[] = [approvals.sweep, { name: 'outbox', run: () => outbox.recover({ sendingBefore: new Date(Date.now() - SENDING_STALE_MS) }) }, { name: 'outbox retention', run: () => outbox.prune(new Date(clock.now().getTime() - config.outbox.retention)) }, chat.sweep, runs.sweep, mcp.sweep, questions.sweep, agent.sweep];
    kinds.register(sweepJob(() => sweeps, logger, (step, error) => dbFailed(error, () => logger.warn({ step, err: error instanceof Error ? error.message : String(error) }, 'a sweep step failed; the next sweep tries again'))));

    const core: KazmaParts = {
      pipeline: chat.pipeline, inbox: chat.inbox, queues, access, commands, actions, surfaces, replies, outbox,
      tools: tools.registry, approvals: broker, decider: approvals.decider, questions, tasks: tasks.tasks, schedules: schedules.schedules, reconciler: approvals.reconciler, supervisor: runs.supervisor, runner: agent.runner, threads: agent.threads,
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

    const http = new HttpServer({ host: config.http.host, port: config.http.port, logger, checks: deps.readiness });
    if (!worker) http.app.route('/', approvalsApi({ readToken: config.http.api_token, operators: config.access.operators, secrets: loaded.secrets, core: { list: (f) => broker.list(f), decide: (i) => approvals.decider.decide(i) } }));
    const platforms = worker ? [] : await createPlatforms({ loaded, core, http, logger, ...(options.tuning && { tuning: options.tuning }) }, options.early?.platforms);
    await http.listen();
    lifecycle.onStop('http', () => http.close());
    for (const platform of platforms) {
      await platform.start();
      lifecycle.onStop(platform.name, () => platform.stop());
    }

    // Surfaces are attached now: what a previous run left undelivered, undecided or unanswered goes first.
    jobs.startWorkers(worker ? ['swarm'] : undefined);
    if (worker) return { loaded, database, redis, http, core, platforms, stop };
    // On the embedded database this process is the only one: a row left `sending`, or a decision's effect left owed, before it
    // started is the last run's: marked "delivery unknown" (the effect carried out) now, not after the staleness wait other
    // processes need. Not one moved since: the platforms and workers above may be sending, or deciding, already.
    await outbox.recover({ sendingBefore: database.kind === 'pglite' ? bootedAt : new Date(Date.now() - SENDING_STALE_MS) });
    await questions.recoverEffects(database.kind === 'pglite' ? { staleBefore: bootedAt } : {});
    await approvals.reconciler.sweep();
    await schedules.schedules.recover();
    // The embedded database has one owner (the data-dir lock): an unfinished event untouched since this process started is the last run's;
    // on PostgreSQL another live process may hold some, so only those whose lease has lapsed.
    const found = await chat.pipeline.recover({ staleBefore: database.kind === 'pglite' ? bootedAt : new Date(Date.now() - config.turns.lease_ttl) });
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
