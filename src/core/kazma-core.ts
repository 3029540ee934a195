// The core, assembled: tools, model chain, checkpointer, effect journal, graph, turn runner, approvals,
// commands and the inbound pipeline. The composition root (src/main.ts) builds it once; adapters and
// the console plug in with attachSurface and hand every inbound event to `pipeline`.
import { randomUUID } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import { createCheckpointer } from './agent/checkpointer.ts';
import { ModelChains, modelSettingsFromConfig } from './agent/chain-provider.ts';
import { buildAgentGraph } from './agent/graph.ts';
import { defaultSystemPrompt } from './agent/model-node.ts';
import { ThreadStore } from './agent/threads.ts';
import { TurnRunner } from './agent/turn-runner.ts';
import { DurableApprovalBroker } from './approvals/durable-broker.ts';
import type { ApprovalBroker } from './approvals/port.ts';
import { ApprovalReconciler } from './approvals/reconciler.ts';
import type { ChatRef } from './chat/ref.ts';
import { AccessPolicy, ChatQueues, Inbox, InboundPipeline, type Actor, type Surface, type SurfaceRegistry } from './chat/index.ts';
import type { DecideOutcome } from './approvals/port.ts';
import { builtinCommands, CommandRegistry, type CommandServices } from './commands/index.ts';
import type { LoadedConfig } from './config/index.ts';
import type { Database } from './db/index.ts';
import { EffectJournal } from './effects/journal.ts';
import type { Logger } from './log/index.ts';
import { openOutbox, type OutboxDispatcher } from './outbox/index.ts';
import { ReplyOutbox } from './outbox/replies.ts';
import { builtinTools } from './tools/builtin/index.ts';
import { logSandboxStatus, sandboxStatus } from './tools/shell/sandbox-status.ts';
import type { ToolContext, ToolDefinition } from './tools/define.ts';
import { ToolRegistry } from './tools/registry.ts';

/** Options for {@link createKazmaCore}. */
export interface KazmaCoreOptions {
  loaded: LoadedConfig;
  database: Database;
  logger: Logger;
  /** Tools registered after the built-ins (plugins; a test's own tools). */
  tools?: ToolDefinition[];
  /** Where every surface attaches; shared with the outbox worker, which delivers through it. */
  surfaces: SurfaceRegistry;
  /** Delivers outbox rows (cards and their edits); the BullMQ outbox worker in production. */
  outbox: OutboxDispatcher;
}

/** The running core, as the composition root, adapters and the console see it. */
export interface KazmaCore {
  readonly pipeline: InboundPipeline;
  /** Every inbound event, recorded before it is acknowledged (recovery and pruning run on it). */
  readonly inbox: Inbox;
  /** Plugs a surface in for its platform; returns a function that detaches it. */
  attachSurface(surface: Surface): () => void;
  readonly access: AccessPolicy;
  readonly tools: ToolRegistry;
  readonly commands: CommandRegistry;
  readonly approvals: ApprovalBroker;
  readonly runner: TurnRunner;
  readonly surfaces: SurfaceRegistry;
  /** Expires and heals approval gates (at start and on a schedule). */
  readonly reconciler: ApprovalReconciler;
  /** Decides a gate from outside a chat (the HTTP API), in the gate's chat queue; a refusal or late decision is only returned, never posted. */
  decide(input: { gateId: string; decision: 'once' | 'always' | 'deny'; actor: Actor; reason?: string }): Promise<DecideOutcome>;
  /** Resolves when no turn is queued or running and every card or edit for an attached surface is delivered. */
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
  const { shell: shellConfig, env_allow: envAllow } = config.tools;
  const shell = {
    timeoutMs: shellConfig.timeout, ...(shellConfig.allow && { allow: shellConfig.allow }), sandbox: shellConfig.sandbox,
    network: shellConfig.network, cpuSeconds: shellConfig.cpu_seconds, envAllow, hide: [config.data_dir],
  };
  for (const tool of [...builtinTools({ time: { zone: config.time.zone }, shell }), ...(options.tools ?? [])]) tools.register(tool);
  mkdirSync(config.tools.workspace, { recursive: true });
  if (tools.get('shell')) {
    logSandboxStatus(logger, await sandboxStatus({
      mode: shellConfig.sandbox, network: shellConfig.network, cpuSeconds: shellConfig.cpu_seconds, pathEnv: loaded.env.PATH, workspace: config.tools.workspace,
    }));
  }

  const chains = new ModelChains({ settings: modelSettingsFromConfig(config.model), registry: tools });
  chains.current(); // builds every configured model now, so a broken fallback fails at start
  if (!chains.configured) logger.warn('no model is configured: every turn will answer with how to configure one');

  const checkpointer = await createCheckpointer(database, { onPoolError: (err) => logger.warn({ err }, 'checkpointer connection lost') });
  const aborter = new AbortController();
  const { surfaces } = options;
  const access = new AccessPolicy({ access: config.access, approvals: config.approvals });
  const approvals = new DurableApprovalBroker({
    db: database.db, outbox: options.outbox, logger, secrets: loaded.secrets,
    channels: config.approvals.channels as ChatRef[], timeoutMs: config.approvals.timeout, grantTtlMs: config.approvals.grant_ttl,
    mayDecide: (actor, requester) => access.approvalRefusal(actor, requester),
    operatorName: (actor) => access.operatorOf(actor)?.name,
  });
  const toolContext = (signal?: AbortSignal): ToolContext => ({
    workspace: config.tools.workspace, env: loaded.env, secrets: loaded.secrets, ...(signal && { signal }),
  });
  const graph = buildAgentGraph({
    chains, systemPrompt: defaultSystemPrompt(config.time.zone), registry: tools, toolContext,
    isGranted: (call) => approvals.isGranted({ ...call, chat: call.chat as ChatRef }), journal: new EffectJournal(database.db), checkpointer: checkpointer.saver,
  });
  const threads = new ThreadStore(database.db);
  const replies = new ReplyOutbox({ db: database.db, surfaces, dispatcher: options.outbox, logger });
  const runner = new TurnRunner({
    graph, threads, broker: approvals, surfaces, replies, logger, signal: aborter.signal,
    heartbeatMs: Math.max(500, Math.floor(config.approvals.stale_after / 3)),
  });
  const commands = new CommandRegistry();
  for (const command of builtinCommands()) commands.register(command);
  const services: CommandServices = {
    startNewThread: (chat) => runner.newThread(chat),
    currentThread: (chat) => threads.current(chat),
    pendingApprovals: async (chat) => (await approvals.list({ chat })).length,
    pendingApprovalIds: async (chat) => (await approvals.list({ chat })).map((gate) => gate.gateId),
    decide: async (input) => {
      const outcome = await decide(input);
      return outcome.ok ? `${input.decision === 'deny' ? 'Denied' : 'Approved'} ${outcome.gate.call.tool}.` : outcome.message;
    },
    grants: (chat) => approvals.grants(chat),
    revokeGrant: (id) => approvals.revokeGrant(id),
    repostApproval: (gateId, chat) => approvals.repost(gateId, chat),
    models: () => (chains.configured ? chains.labels : []),
    uptimeMs: () => Date.now() - startedAt,
  };
  const queues = new ChatQueues();
  /**
   * Runs a decision in the queue of the chat the question came from, in order with its turns. `via` is
   * the chat the decider is in; without one (the HTTP API) a refusal is only returned, never posted.
   */
  const decide = async (input: { gateId: string; decision: 'once' | 'always' | 'deny'; actor: Actor; via?: ChatRef; reason?: string }): Promise<DecideOutcome> => {
    const gate = await approvals.get(input.gateId);
    if (!gate) return approvals.decide(input); // answers "not known" and audits it
    let outcome: DecideOutcome | undefined;
    await queues.run(gate.chat, async () => {
      outcome = await runner.decide(input);
    });
    return outcome!;
  };
  const reconciler = new ApprovalReconciler({ broker: approvals, runner, queues, staleAfterMs: config.approvals.stale_after, logger });
  // Each process names itself in the inbox, so a lease it stops renewing can be told from one it holds.
  const inbox = new Inbox({ db: database.db, owner: `${process.pid}-${randomUUID().slice(0, 8)}` });
  inbox.startHeartbeat(Math.max(200, Math.floor(config.turns.stale_after / 3)));
  const pipeline = new InboundPipeline({
    inbox, access, commands, services, runner, broker: approvals, surfaces, queues, logger, maxAttempts: config.turns.max_attempts,
  });

  let stopping: Promise<void> | undefined;
  return {
    pipeline, inbox, access, tools, commands, approvals, runner, surfaces, reconciler, decide,
    attachSurface: (surface) => surfaces.attach(surface),
    idle: async () => {
      await queues.idle();
      await outboxSettled(database, surfaces);
    },
    stop(timeoutMs) {
      // Once: the composition root and a test may both stop it, and the pool closes only once.
      stopping ??= (async () => {
        pipeline.close();
        await drain(queues, aborter, timeoutMs, logger);
        inbox.stopHeartbeat();
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

/**
 * Waits (up to 15 s) until no card or edit bound for an attached surface is left to deliver, so "idle"
 * means nothing more will appear. Rows for a platform that is not attached cannot be delivered here
 * and do not hold it up.
 */
async function outboxSettled(database: Database, surfaces: SurfaceRegistry): Promise<void> {
  const deadline = Date.now() + 15_000;
  while (Date.now() < deadline) {
    const open = (await openOutbox(database.db)).filter((row) => surfaces.has(row.destination as ChatRef));
    if (open.length === 0) return;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
