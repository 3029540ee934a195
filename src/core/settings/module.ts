import type { AccessPolicy } from '../chat/index.ts';
import type { CommandRegistry, SubcommandBranch } from '../commands/index.ts';
import type { LoadedConfig } from '../config/index.ts';
import type { Db } from '../db/index.ts';
import { storedActor } from '../decisions/index.ts';
import type { Logger } from '../log/index.ts';
import { type ToolRegistry, MCP_PREFIX } from '../tools/index.ts';
import { maskSecrets } from '../secrets/index.ts';
import { configCommand, type ServerLine } from './commands.ts';
import { RuntimeSettings } from './store.ts';
import { ToolsOverlay } from './tools-overlay.ts';
import { ChatPreferences } from './preferences.ts';

/** What {@link createSettings} needs; build it after every module that registers tools. */
export interface SettingsDeps {
  loaded: LoadedConfig;
  db: Db;
  registry: ToolRegistry;
  commands: CommandRegistry;
  access: AccessPolicy;
  logger: Logger;
  /** What a failed background read says (a database outage is said once); default a warning. */
  onDbError?: (error: unknown) => void;
  /** MCP servers for `/config tools list/toggle` and `/config show` (absent: built-in tools only). */
  mcp?: McpConfigPort;
  /** Skills for `/config tools list/toggle` (absent: none); a skill is switched whole, like an MCP server. */
  skills?: SkillsConfigPort;
  /** `/config prompt` and `/config model` (made before the agent, which reads them: {@link createPreferences}). */
  preferences?: ChatPreferences;
  /** `/config users` (core/pairing): the people let in, and removing one. */
  users?: SubcommandBranch;
}

/** What `/config` uses of the skills module. */
export interface SkillsConfigPort {
  /** Every skill found, with its switch, whether its tools are loaded, and its line (verdict and why). */
  list(): Array<{ name: string; on: boolean; loaded: boolean; line: string }>;
  /** Whether a registered tool belongs to a skill (listed under its skill, not one by one). */
  owns(tool: string): boolean;
  setEnabled(name: string, on: boolean, by: string): Promise<void>;
}

/** What `/config` uses of the MCP module. */
export interface McpConfigPort {
  list(): Promise<ServerLine[]>;
  setEnabled(name: string, on: boolean, by: string): Promise<void>;
  /** Servers as configured, secrets masked, for `/config show`. */
  masked(): Promise<unknown[]>;
}

const isMcpTool = (name: string) => name.startsWith(MCP_PREFIX);

/** How often a process picks up switches another process saved. */
const FOLLOW_MS = 5_000;

/**
 * The house instructions and model choices saved from chat, read now and followed every few seconds. Made
 * before the agent (it reads them per model call) and handed to {@link createSettings} for `/config`.
 */
export async function createPreferences(deps: {
  db: Db;
  logger: Logger;
  onDbError?: (error: unknown) => void;
}): Promise<ChatPreferences> {
  const preferences = new ChatPreferences({
    db: deps.db,
    settings: new RuntimeSettings(deps.db),
    logger: deps.logger,
    ...(deps.onDbError && { onError: deps.onDbError }),
  });
  await preferences.load();
  preferences.follow(FOLLOW_MS);
  return preferences;
}

/**
 * The settings module: run-time settings over kazma.yaml, `/config`, and the audit of every attempt
 * (a refused `/config` by a non-operator included).
 */
export async function createSettings({
  loaded,
  db,
  registry,
  commands,
  access,
  logger,
  mcp,
  skills,
  onDbError,
  preferences,
  users,
}: SettingsDeps) {
  const settings = new RuntimeSettings(db);
  const overlay = new ToolsOverlay({ settings, registry, logger, ...(onDbError && { onError: onDbError }) });
  await overlay.apply();
  overlay.follow(FOLLOW_MS);
  const audit: Parameters<typeof configCommand>[0]['audit'] = (entry, ctx, tx) =>
    settings.audit(
      {
        ...entry,
        actor: storedActor(ctx.actor, access.operatorOf(ctx.actor)?.name),
        chat: ctx.chat,
        command: `/config ${entry.command}`,
      },
      tx,
    );
  commands.onRefused(async (refusal) => {
    if (refusal.command !== 'config') return;
    await settings.audit({
      actor: storedActor(refusal.actor),
      chat: refusal.chat,
      command: `/config ${refusal.rest}`.trim(),
      outcome: 'refused',
      detail: 'not an operator',
    });
  });
  // MCP tools are switched per server (their names change with the server), so /config lists servers instead.
  const command = configCommand({
    tools: () =>
      registry
        .list({ includeDisabled: true })
        .filter((t) => !isMcpTool(t.name) && !skills?.owns(t.name))
        .map((t) => ({ name: t.name, on: !registry.disabled.has(t.name), tier: t.tier ?? 'ask' })),
    setTool: (tx, name, on, by) => overlay.set(name, on, by, tx),
    ...(mcp && {
      servers: () => mcp.list(),
      maskedServers: () => mcp.masked(),
      setServer: (name: string, on: boolean, by: string) => mcp.setEnabled(name, on, by),
    }),
    ...(skills && {
      skills: () => skills.list(),
      setSkill: (name: string, on: boolean, by: string) => skills.setEnabled(name, on, by),
    }),
    effective: () =>
      maskSecrets(
        {
          ...loaded.config,
          tools: { ...loaded.config.tools, disabled: [...registry.disabled].filter((n) => !isMcpTool(n)).sort() },
        },
        { secrets: loaded.secrets },
      ),
    audit,
    ...(users && { users }),
    ...(preferences && {
      preferences: {
        preferences,
        models: () => [loaded.config.model, ...loaded.config.model.fallbacks].map((m) => m.name).filter(Boolean),
      },
    }),
  });
  return { settings, overlay, command, stop: () => overlay.stop() };
}
