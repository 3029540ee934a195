// The core modules, each built from its factory in the order their dependencies need: decisions before the
// tools that ask questions, tools before the agent, every tool-registering module before the settings.
import { createSampler } from '../core/agent/index.ts';
import { createAgent } from '../core/agent/module.ts';
import { createApprovalBroker, createApprovals } from '../core/approvals/module.ts';
import { AccessPolicy, ChatQueues } from '../core/chat/index.ts';
import { createChat } from '../core/chat/module.ts';
import type { Clock } from '../core/clock.ts';
import { CommandRegistry, FirstWelcome } from '../core/commands/index.ts';
import { createCommitment } from '../core/commitment/module.ts';
import { ActionRouter, FirstDecisionWins, Questions, whoMayAnswer } from '../core/decisions/index.ts';
import { serverRequestHandler, watchMcp } from '../core/mcp/index.ts';
import { createMcp } from '../core/mcp/module.ts';
import { createMemory } from '../core/memory/module.ts';
import { createPairing } from '../core/pairing/index.ts';
import { progressStamps, watchGates, watchOutbox, watchSchedules, watchTasks, watchTurns } from '../core/runs/index.ts';
import { createRuns } from '../core/runs/module.ts';
import { createSchedules } from '../core/schedules/module.ts';
import { createPreferences, createSettings } from '../core/settings/module.ts';
import { createAgentSkills } from '../core/skills/index.ts';
import { createSkills } from '../core/skills/module.ts';
import type { ChatRef } from '../core/surface/index.ts';
import { createTasks } from '../core/tasks/module.ts';
import { createTools } from '../core/tools/module.ts';
import { ThreadLeases } from '../core/turns/index.ts';
import { createWeb } from '../core/web/index.ts';
import type { Lifecycle } from '../lifecycle.ts';
import type { Base } from './base.ts';
import type { AssembleOptions } from './options.ts';

export type Modules = Awaited<ReturnType<typeof createModules>>;

export async function createModules(base: Base, options: AssembleOptions, lifecycle: Lifecycle, clock: Clock) {
  const { loaded, logger } = options;
  const { config } = loaded;
  const { database, vault, processName, kinds, jobs, meter, surfaces, outbox, replies } = base;
  const { db } = database;
  const { dbFailed } = base.deps;
  // Before the access check, which lets in the people pairing let in; the audit names operators later.
  const pairing = await createPairing({
    loaded,
    db,
    replies,
    logger,
    clock,
    onDbError: dbFailed,
    operatorName: (actor) => access.operatorOf(actor)?.name,
  });
  lifecycle.onStop('pairing', () => pairing.stop());
  const access = new AccessPolicy({
    access: config.access,
    approvals: config.approvals,
    paired: pairing.paired,
    claimed: pairing.claims,
  });
  const queues = new ChatQueues();
  const actions = new ActionRouter();
  const commands = new CommandRegistry();
  const decisions = new FirstDecisionWins({ db, outbox, surfaces, logger });
  const questions = new Questions({
    db,
    decisions,
    clock,
    logger,
    mayDecide: whoMayAnswer(access),
    operatorName: (actor) => access.operatorOf(actor)?.name,
  });
  actions.register('q', questions);
  // Before the tools: the web tools' egress guard and the commitment check (clarify cards are
  // questions) make up authorizeEffect, the one check every call passes before any effect.
  const web = createWeb({ loaded });
  const commitment = createCommitment({ loaded, questions, replies, surfaces, egress: web.guard });
  const agentSkills = createAgentSkills({ loaded, logger, clock });
  const tools = await createTools({
    loaded,
    logger,
    clock,
    authorize: commitment.authorize,
    extra: [...vault.tools, ...web.tools, ...commitment.tools, ...agentSkills.tools, ...(options.tools ?? [])],
  });
  const { registry } = tools;
  const memory = createMemory({ loaded, db, access, registry, clock, logger });
  const broker = createApprovalBroker({ loaded, db, decisions, access, clock, logger, jobs: { queue: jobs, kinds } });
  const progress = progressStamps({ db, logger });
  // One lease table per process, shared by the chat's turn order and the agent's runs. The embedded
  // database has one process (the data-dir lock), so its leases live in this object's memory and a
  // start begins with none.
  const leases = new ThreadLeases({
    db,
    owner: processName,
    ttlMs: config.turns.lease_ttl,
    solo: database.kind === 'pglite',
  });
  meter.watchLeases(leases);
  const preferences = await createPreferences({ db, logger, onDbError: dbFailed });
  lifecycle.onStop('preferences', () => preferences.stop());
  const agent = await createAgent({
    loaded,
    processName,
    database,
    leases,
    tools,
    broker,
    surfaces,
    replies,
    clock,
    logger,
    progress,
    onDbError: dbFailed,
    meter,
    promptLines: agentSkills.promptLines,
    preferences,
    ...(memory && { recall: (turn, query) => memory.memory.recall(turn, query) }),
  });
  const { runner } = agent;
  const tasks = createTasks({ db, registry, runner, broker, jobs, kinds, outbox, replies, access, clock, logger });
  const schedules = createSchedules({
    loaded,
    db,
    jobs,
    kinds,
    outbox,
    registry,
    access,
    clock,
    logger,
    tasks: tasks.tasks,
    ...(memory && { notesAbout: (requester, chat, words) => memory.memory.notesWith({ chat, requester }, words) }),
  });
  const serverRequests = serverRequestHandler({
    questions,
    destinations: config.approvals.channels as ChatRef[],
    sample: createSampler(config.model),
    timeoutMs: config.approvals.timeout,
  });
  const mcp = await createMcp({
    loaded,
    db,
    registry,
    clock,
    logger,
    serverRequests,
    vault: vault.vault,
    onDbError: dbFailed,
  });
  lifecycle.onStop('mcp', () => mcp.stop());
  // After every built-in tool, so a skill's tool can never take a built-in's name (it is namespaced instead).
  const skills = await createSkills({ loaded, db, registry, logger, onDbError: dbFailed, clock });
  lifecycle.onStop('skills', () => skills.stop());
  // After every module that registers tools: the saved on/off switches apply to all of them.
  const settings = await createSettings({
    loaded,
    db,
    registry,
    commands,
    access,
    logger,
    mcp: mcp.manager,
    skills: skills.config,
    onDbError: dbFailed,
    preferences,
    users: pairing.users,
  });
  lifecycle.onStop('settings', () => settings.stop());
  const approvals = createApprovals({
    loaded,
    broker,
    decisions,
    runner: tasks.resumer,
    queues,
    actions,
    meter,
    clock,
    logger,
  });
  const welcomes = new FirstWelcome({ db, clock });
  const chat = createChat({
    loaded,
    processName,
    db,
    access,
    commands,
    runner,
    actions,
    surfaces,
    replies,
    queues,
    clock,
    logger,
    progress,
    threadLeases: leases,
    ...(options.onEventWorked && { onWorked: options.onEventWorked }),
    pairing: pairing.answer,
    ...(config.access.welcome && { welcome: welcomes.first.bind(welcomes) }),
  });
  const runs = createRuns({
    loaded,
    db,
    questions,
    clock,
    logger,
    ...(options.onIncidentStage && { onStage: options.onIncidentStage }),
    kinds: [
      watchTasks(db, tasks.tasks),
      watchTurns(db),
      watchSchedules(db, schedules.schedules),
      watchGates(db, () => approvals.reconciler.sweep()),
      watchOutbox(db, (ids) => outbox.dispatch(ids)),
      watchMcp(db, (name) => mcp.manager.retryNow(name)),
    ],
  });
  return {
    access,
    queues,
    actions,
    commands,
    questions,
    tools,
    broker,
    agent,
    tasks,
    schedules,
    memory,
    mcp,
    skills,
    agentSkills,
    settings,
    pairing,
    approvals,
    chat,
    runs,
  };
}
