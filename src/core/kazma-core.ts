// The core, assembled: tools, model chain, checkpointer, effect journal, graph, turn runner, approvals,
// commands and the inbound pipeline. The composition root (src/main.ts) builds it once; adapters and
// the console plug in with attachSurface and hand every inbound event to `pipeline`.
import { mkdirSync } from 'node:fs';
import { createCheckpointer } from './agent/checkpointer.ts';
import { ModelChains, modelSettingsFromConfig } from './agent/chain-provider.ts';
import { buildAgentGraph } from './agent/graph.ts';
import { defaultSystemPrompt } from './agent/model-node.ts';
import { ThreadStore } from './agent/threads.ts';
import { TurnRunner } from './agent/turn-runner.ts';
import { ApprovalGrants } from './approvals/grants.ts';
import { MemoryApprovalBroker } from './approvals/memory-broker.ts';
import type { ApprovalBroker } from './approvals/port.ts';
import { AccessPolicy, ChatQueues, InboundPipeline, ProcessedEvents, SurfaceRegistry, type Surface } from './chat/index.ts';
import { builtinCommands, CommandRegistry, type CommandServices } from './commands/index.ts';
import type { LoadedConfig } from './config/index.ts';
import type { Database } from './db/index.ts';
import { EffectJournal } from './effects/journal.ts';
import type { Logger } from './log/index.ts';
import { builtinTools } from './tools/builtin/index.ts';
import type { ToolContext, ToolDefinition } from './tools/define.ts';
import { ToolRegistry } from './tools/registry.ts';

/** Options for {@link createKazmaCore}. */
export interface KazmaCoreOptions {
  loaded: LoadedConfig;
  database: Database;
  logger: Logger;
  /** Tools registered after the built-ins (plugins; a test's own tools). */
  tools?: ToolDefinition[];
}

/** The running core, as the composition root, adapters and the console see it. */
export interface KazmaCore {
  readonly pipeline: InboundPipeline;
  /** Plugs a surface in for its platform; returns a function that detaches it. */
  attachSurface(surface: Surface): () => void;
  readonly access: AccessPolicy;
  readonly tools: ToolRegistry;
  readonly commands: CommandRegistry;
  readonly approvals: ApprovalBroker;
  readonly runner: TurnRunner;
  /** Resolves when no turn is queued or running. */
  idle(): Promise<void>;
  /** Stops intake, waits for running turns up to `timeoutMs` (then aborts them), closes the checkpointer. */
  stop(timeoutMs: number): Promise<void>;
}

/** Builds the core. Fails at start when a configured fallback model is incomplete or the checkpoint tables are missing. */
export async function createKazmaCore(options: KazmaCoreOptions): Promise<KazmaCore> {
  const { loaded, database, logger } = options;
  const { config } = loaded;
  const startedAt = Date.now();
  const tools = new ToolRegistry({ disabled: config.tools.disabled });
  const shell = { timeoutMs: config.tools.shell.timeout, ...(config.tools.shell.allow && { allow: config.tools.shell.allow }) };
  for (const tool of [...builtinTools({ time: { zone: config.time.zone }, shell }), ...(options.tools ?? [])]) tools.register(tool);
  mkdirSync(config.tools.workspace, { recursive: true });

  const chains = new ModelChains({ settings: modelSettingsFromConfig(config.model), registry: tools });
  chains.current(); // builds every configured model now, so a broken fallback fails at start
  if (!chains.configured) logger.warn('no model is configured: every turn will answer with how to configure one');

  const checkpointer = await createCheckpointer(database, { onPoolError: (err) => logger.warn({ err }, 'checkpointer connection lost') });
  const aborter = new AbortController();
  const surfaces = new SurfaceRegistry();
  const access = new AccessPolicy({ access: config.access, approvals: config.approvals });
  const approvals = new MemoryApprovalBroker({
    surfaces, logger,
    grants: new ApprovalGrants({ ttlMs: config.approvals.grant_ttl }),
    mayDecide: (actor, requester) => access.approvalRefusal(actor, requester),
  });
  const toolContext = (signal?: AbortSignal): ToolContext => ({
    workspace: config.tools.workspace, env: loaded.env, secrets: loaded.secrets, ...(signal && { signal }),
  });
  const graph = buildAgentGraph({
    chains, systemPrompt: defaultSystemPrompt(config.time.zone), registry: tools, toolContext,
    isGranted: (call) => approvals.isGranted(call), journal: new EffectJournal(database.db), checkpointer: checkpointer.saver,
  });
  const threads = new ThreadStore(database.db);
  const runner = new TurnRunner({ graph, threads, broker: approvals, surfaces, logger, signal: aborter.signal });
  const commands = new CommandRegistry();
  for (const command of builtinCommands()) commands.register(command);
  const services: CommandServices = {
    startNewThread: (chat) => runner.newThread(chat),
    currentThread: (chat) => threads.current(chat),
    pendingApprovals: (chat) => approvals.pending({ chat }).length,
    models: () => (chains.configured ? chains.labels : []),
    uptimeMs: () => Date.now() - startedAt,
  };
  const queues = new ChatQueues();
  const pipeline = new InboundPipeline({
    dedupe: new ProcessedEvents(database.db), access, commands, services, runner, broker: approvals, surfaces, queues, logger,
  });

  let stopping: Promise<void> | undefined;
  return {
    pipeline, access, tools, commands, approvals, runner,
    attachSurface: (surface) => surfaces.attach(surface),
    idle: () => queues.idle(),
    stop(timeoutMs) {
      // Once: the composition root and a test may both stop it, and the pool closes only once.
      stopping ??= (async () => {
        pipeline.close();
        await drain(queues, aborter, timeoutMs, logger);
        await checkpointer.close();
      })();
      return stopping;
    },
  };
}

/** Waits for queued and running turns up to `timeoutMs`, then aborts them and gives them a second to end. */
async function drain(queues: ChatQueues, aborter: AbortController, timeoutMs: number, logger: Logger): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<'late'>((resolve) => (timer = setTimeout(() => resolve('late'), timeoutMs)));
  const outcome = await Promise.race([queues.idle().then(() => 'idle' as const), late]);
  clearTimeout(timer);
  if (outcome === 'idle') return;
  logger.warn({ running: queues.total }, 'turns still running at shutdown: aborting them');
  aborter.abort();
  await Promise.race([queues.idle(), new Promise((resolve) => setTimeout(resolve, 1000))]);
}
