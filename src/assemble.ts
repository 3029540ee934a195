// The composition root, and nothing else: the steps of a start, in order. src/main.ts (the `kazma`
// command) and every test harness assemble Kazma here, so what is tested is what runs. Each step lives in
// src/assembly/: the ground (base.ts), the core modules (modules.ts), their commands and sweeps, the stop
// race (stop-core.ts) and the start-up recovery order (recovery.ts).
import { startTracing } from './assembly/tracing.ts';
import { approvalsApi, HttpServer, metricsRoute } from './adapters/http/index.ts';
import { openBase } from './assembly/base.ts';
import { registerCommands } from './assembly/commands.ts';
import { createModules } from './assembly/modules.ts';
import type { AssembleOptions, RunningKazma } from './assembly/options.ts';
import { recoverAtStart } from './assembly/recovery.ts';
import { JobsRestorer, MEMORY_CHECK_MS } from './assembly/restore.ts';
import { coreStopper } from './assembly/stop-core.ts';
import { registerSweeps, scheduleSweeps } from './assembly/sweeps.ts';
import { createUi } from './assembly/ui.ts';
import { systemClock } from './core/clock.ts';
import { receiversOnHttpPort } from './core/config/index.ts';
import type { KazmaParts } from './core/kazma-core.ts';
import { Lifecycle } from './lifecycle.ts';
import { createPlatforms } from './platforms.ts';

export { queuePrefix } from './assembly/base.ts';
export type { AssembleOptions, RunningKazma } from './assembly/options.ts';

/**
 * Builds and starts Kazma: storage → vault (config pointers) → jobs → core modules → HTTP → platforms →
 * recovery → sweeps.
 */
export async function assembleKazma(options: AssembleOptions): Promise<RunningKazma> {
  const { loaded, logger } = options;
  const { config } = loaded;
  const clock = options.clock ?? systemClock;
  // Before anything of this process can touch a row: what the embedded database holds from before then was
  // left by the last run.
  const bootedAt = new Date();
  const worker = options.role === 'worker';
  const lifecycle = new Lifecycle(logger);
  const stop = () => lifecycle.stop(config.shutdown.timeout);
  // First registered, last stopped: the spans of the shutdown's own work are flushed too.
  const stopTracing = startTracing({ env: loaded.env, role: worker ? 'worker' : 'start', logger });
  if (stopTracing) lifecycle.onStop('tracing', stopTracing);
  try {
    const base = await openBase(options, lifecycle, clock);
    const { database, redis, surfaces, replies, outbox } = base;
    const m = await createModules(base, options, lifecycle, clock);
    registerCommands(m, clock);
    registerSweeps(base, m, { retentionMs: config.outbox.retention, clock, logger });

    const stopCore = coreStopper(base, m, logger);
    const core: KazmaParts = {
      pipeline: m.chat.pipeline,
      inbox: m.chat.inbox,
      queues: m.queues,
      access: m.access,
      commands: m.commands,
      actions: m.actions,
      surfaces,
      replies,
      outbox,
      tools: m.tools.registry,
      approvals: m.broker,
      decider: m.approvals.decider,
      questions: m.questions,
      tasks: m.tasks.tasks,
      schedules: m.schedules.schedules,
      reconciler: m.approvals.reconciler,
      supervisor: m.runs.supervisor,
      runner: m.agent.runner,
      threads: m.agent.threads,
      attachSurface: (surface) => surfaces.attach(surface),
      idle: async () => {
        await m.queues.idle();
        await outbox.settled();
      },
      stop: stopCore,
    };
    for (const surface of options.surfaces ?? []) core.attachSurface(surface);
    // Leaves a little of shutdown.timeout for the steps after it (workers, redis, database).
    lifecycle.onStop('core', () => core.stop(Math.max(500, config.shutdown.timeout - 2500)));

    const restorer = new JobsRestorer(base, m, { sweepEveryMs: config.runs.sweep_interval, logger });
    const http = new HttpServer({
      host: config.http.host,
      port: config.http.port,
      whenTaken: options.httpPortTaken ?? 'stop',
      receivers: receiversOnHttpPort(config),
      logger,
      checks: { ...base.deps.readiness, jobs: restorer.readiness },
    });
    // A worker's figures too (its tasks' turns, model and tool calls): each process is scraped on its own.
    if (config.metrics.enabled)
      http.app.route(
        '/',
        metricsRoute({
          meter: base.meter,
          public: config.metrics.public,
          readToken: config.http.api_token,
          operators: config.access.operators,
        }),
      );
    if (!worker)
      http.app.route(
        '/',
        approvalsApi({
          readToken: config.http.api_token,
          operators: config.access.operators,
          secrets: loaded.secrets,
          core: { list: (f) => m.broker.list(f), decide: (i) => m.approvals.decider.decide(i) },
        }),
      );
    // The operators' web page, on the same server; a worker serves health only.
    const ui = !worker && config.ui.enabled ? createUi(base, m, options, clock) : undefined;
    if (ui) http.app.route('/', ui.app);
    const tuning = options.tuning && { tuning: options.tuning };
    const platforms = worker
      ? []
      : await createPlatforms({ loaded, core, http, logger, ...tuning }, options.early?.platforms);
    await http.listen();
    lifecycle.onStop('http', () => http.close());
    // Steps stop last-registered first: the page's event streams end before the server waits for its sockets.
    if (ui) lifecycle.onStop('ui', () => ui.stop());
    for (const platform of platforms) {
      await platform.start();
      lifecycle.onStop(platform.name, () => platform.stop());
    }

    // Surfaces are attached now: what a previous run left undelivered, undecided or unanswered goes first.
    base.jobs.startWorkers(worker ? ['swarm'] : undefined);
    // From here Redis may forget (restart empty, fail over, be flushed), and jobs that failed while the
    // database was down are dropped: either way they are derived again from the database.
    const restore = (reason: string) => () =>
      void restorer.restore(reason).catch((error: unknown) => base.deps.dbFailed(error));
    base.deps.onDatabaseBack(restore('the database is back'));
    await base.jobs.watchMemory({
      everyMs: MEMORY_CHECK_MS,
      lostAtStart: worker, // a worker runs no start-up recovery
      onLost: () => restorer.restore('redis forgot its jobs'),
    });
    if (worker) return { loaded, database, redis, http, core, platforms, stop };
    await recoverAtStart(base, m, { bootedAt, turnLeaseTtlMs: config.turns.lease_ttl, logger });
    await scheduleSweeps(base, config.runs.sweep_interval);
    return { loaded, database, redis, http, core, platforms, stop };
  } catch (error) {
    await stop();
    throw error;
  }
}
