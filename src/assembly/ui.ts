// The operators' web page (`/ui`) wired to the core: every action is the call a chat tap or command makes
// (src/adapters/http/ui/port.ts lists them), so the page is a fourth surface of one core, not a second system.
import { webUi } from '../adapters/http/index.ts';
import { GatePages, gateAttempts, gateCard } from '../core/approvals/index.ts';
import type { Clock } from '../core/clock.ts';
import { openIncidents } from '../core/runs/index.ts';
import { maskSecrets, maskText } from '../core/secrets/index.ts';
import type { Actor } from '../core/surface/index.ts';
import { recentTasks } from '../core/tasks/index.ts';
import type { Base } from './base.ts';
import type { Modules } from './modules.ts';
import type { AssembleOptions } from './options.ts';
import { remoteServerAdder, remoteServerRemover } from './ui-mcp.ts';

type UiOptions = Parameters<typeof webUi>[0];

/** The page's core, from the modules' faces. */
export function uiCore(
  base: Base,
  m: Modules,
  options: AssembleOptions,
  clock: Clock,
  listeners: Set<() => void>,
): UiOptions['core'] {
  const { loaded } = options;
  const db = base.database.db;
  const secrets = loaded.secrets;
  const pages = new GatePages({ db });
  const addServer = remoteServerAdder({ loaded, settings: m.settings.settings, vault: base.vault.vault });
  const removeServer = remoteServerRemover({ loaded, settings: m.settings.settings });
  /** A switch made on the page, in the audit as the chat command that makes it. */
  const toggled = (actor: Actor, name: string, on: boolean) =>
    m.settings.settings.audit({
      actor: { platform: actor.platform, id: actor.id, operator: actor.id },
      chat: 'web',
      command: `/config tools toggle ${name}`,
      outcome: 'changed',
      detail: on ? 'on' : 'off',
    });
  return {
    gatePage: (filter) => pages.page(filter),
    card: (gate) => gateCard(gate, { now: clock.now(), secrets }),
    refusal: (gate, actor) => m.access.approvalRefusal(actor, gate.requester),
    decide: (input) => m.approvals.decider.decide(input),
    audit: async ({ subjectId, ...filter }) =>
      (await gateAttempts(db, { ...filter, ...(subjectId && { gateId: subjectId }) })).map(({ gateId, ...a }) => ({
        subjectId: gateId,
        ...a,
      })),
    tasks: async () =>
      (await recentTasks(db)).map((t) => ({
        id: t.id,
        goal: t.goal,
        state: t.state,
        createdAt: t.createdAt,
        ...(t.error && { error: t.error }),
      })),
    cancelTask: async (id) => {
      const result = await m.tasks.tasks.cancel(id);
      return result.ok ? { ok: true, message: `Task ${id} cancelled.` } : { ok: false, message: result.reason };
    },
    schedules: async () =>
      (await m.schedules.schedules.list()).map((s) => ({
        id: s.id,
        kind: s.kind,
        text: s.text,
        state: s.state,
        when: s.dueAt ? `${s.dueAt.toISOString().replace('T', ' ').slice(0, 16)} UTC` : `${s.pattern} (${s.zone})`,
      })),
    cancelSchedule: async (id) =>
      (await m.schedules.schedules.cancel(id))
        ? { ok: true, message: `Schedule ${id} cancelled.` }
        : { ok: false, message: `Schedule ${id} is not scheduled (fired, cancelled or unknown).` },
    incidents: async () => {
      const rows = await openIncidents(db);
      // Every incident's question in one read, not one read per incident.
      const questions = await m.questions.getMany(rows.flatMap((row) => (row.questionId ? [row.questionId] : [])));
      return rows.map((row) => {
        const question = row.questionId ? questions.get(row.questionId) : undefined;
        return {
          id: row.id,
          kind: row.workKind,
          workId: row.workId,
          problem: row.problem,
          detail: row.detail,
          openedAt: row.openedAt,
          ...(row.questionId && { questionId: row.questionId }),
          options: question?.state === 'open' ? question.options.map((o) => ({ id: o.id, label: o.label })) : [],
        };
      });
    },
    answer: async ({ questionId, option, actor }) => {
      const question = await m.questions.get(questionId);
      if (!question) return { ok: false, message: 'This question is not known here.' };
      // In the question's chat queue, as a tap on its card is decided.
      const decide = () => m.questions.decide({ id: questionId, decision: option, actor, seen: question });
      const outcome = question.chat ? await m.queues.run(question.chat, decide) : await decide();
      return outcome.ok ? { ok: true, message: `${option} chosen.` } : { ok: false, message: outcome.message };
    },
    tools: () =>
      m.tools.registry
        .list({ includeDisabled: true })
        .filter((t) => !t.name.startsWith('mcp__'))
        .map((t) => ({ name: t.name, on: !m.tools.registry.disabled.has(t.name), tier: t.tier ?? 'ask' })),
    setTool: async ({ name, on, actor }) => {
      if (!m.tools.registry.list({ includeDisabled: true }).some((t) => t.name === name))
        return { ok: false, message: `There is no tool "${name}".` };
      await m.settings.overlay.set(name, on, actor.displayName ?? actor.id);
      await toggled(actor, name, on);
      return { ok: true, message: `${name} is ${on ? 'on' : 'off'} (saved; survives restarts).` };
    },
    servers: async () =>
      (await m.mcp.manager.list()).map((s) => ({
        name: s.name,
        on: s.on,
        state: s.state,
        transport: s.transport,
        toolCount: s.toolCount,
        ...(s.lastError && { lastError: s.lastError }),
      })),
    addServer: ({ form, actor }) => addServer(form, actor),
    setServer: async ({ name, on, actor }) => {
      if (!(await m.mcp.manager.list()).some((s) => s.name === name))
        return { ok: false, message: `There is no MCP server "${name}".` };
      await m.mcp.manager.setEnabled(name, on, actor.displayName ?? actor.id);
      await toggled(actor, name, on);
      return { ok: true, message: `MCP server ${name} is ${on ? 'on' : 'off'} (saved; survives restarts).` };
    },
    removeServer: ({ name, actor }) => removeServer(name, actor),
    skills: () =>
      m.skills.list().map((s) => ({
        name: s.name,
        status: s.status,
        on: s.on,
        tools: s.toolNames,
        ...(s.note && { note: maskText(s.note, secrets) }),
      })),
    agentSkills: () =>
      m.agentSkills.list().map((s) => ({
        name: s.name,
        status: s.status,
        offered: s.status === 'verified' || s.status === 'unsigned',
        dir: s.dir,
        ...(s.doc && { description: s.doc.description }),
        ...(s.source && { source: maskText(s.source, secrets) }),
        ...(s.note && { note: maskText(s.note, secrets) }),
      })),
    settings: () =>
      maskSecrets(
        {
          ...loaded.config,
          tools: { ...loaded.config.tools, disabled: [...m.tools.registry.disabled].sort() },
        },
        { secrets },
      ),
    runtime: async (limit) => {
      const [saved, changes] = await Promise.all([m.settings.settings.list(), m.settings.settings.changes(limit)]);
      return maskSecrets(
        {
          saved: saved.map((s) => ({
            key: s.key,
            value: s.value,
            at: s.updatedAt,
            ...(s.updatedBy && { by: s.updatedBy }),
          })),
          changes: changes.map(({ actor, ...change }) => ({
            who: actor.operator ?? actor.displayName ?? actor.id,
            platform: actor.platform,
            ...change,
          })),
        },
        { secrets },
      );
    },
    changes: (listener) => {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
  };
}

/**
 * What tells the page's listeners that something changed: this process's outbox dispatches, and on
 * PostgreSQL every process's (LISTEN); the live script coalesces the two of a local change. `stop` ends both.
 */
function changeFeed(
  base: Base,
  logger: AssembleOptions['logger'],
): { listeners: Set<() => void>; stop(): Promise<void> } {
  const listeners = new Set<() => void>();
  const tell = () => {
    for (const listener of listeners) listener();
  };
  const local = base.outbox.watch(tell);
  const listening = base.database.changes?.listen(tell).catch((error: unknown) => {
    // Without it the page still redraws on this process's changes, and on reload.
    logger.warn({ err: error }, 'web page: LISTEN failed; changes by other processes show on reload');
    return undefined;
  });
  return {
    listeners,
    stop: async () => {
      local();
      await (await listening)?.();
    },
  };
}

/** Builds the page for `kazma start` (not a worker, and `ui.enabled`). */
export function createUi(base: Base, m: Modules, options: AssembleOptions, clock: Clock) {
  const { config } = options.loaded;
  const feed = changeFeed(base, options.logger);
  const ui = webUi({
    readToken: config.http.api_token,
    operators: config.access.operators,
    db: base.database.db,
    clock,
    sessionTtlMs: config.ui.session_ttl,
    secureCookies: config.http.secure_cookies,
    core: uiCore(base, m, options, clock, feed.listeners),
  });
  return {
    app: ui.app,
    stop: async () => {
      ui.stop();
      await feed.stop();
    },
  };
}
