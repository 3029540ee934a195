import { stringify } from 'yaml';
import {
  type ChatCommand,
  type CommandContext,
  runSubcommands,
  type SubcommandBranch,
  type SubcommandTable,
  usageLines,
} from '../commands/index.ts';
import type { Db } from '../db/index.ts';
import { didYouMean } from '../config/index.ts';
import { modelSubcommand, type PreferenceCommandsPort, promptSubcommand } from './preference-commands.ts';

/** What `/config` uses of the settings module. */
export interface ConfigCommandPort {
  /** Every tool, on or off, with its tier (`ask` when it has none). */
  tools(): Array<{ name: string; on: boolean; tier: string }>;
  /** Switches a tool on or off, saving it on `tx` (the command's journalled transaction). */
  setTool(tx: Db, name: string, on: boolean, by: string): Promise<void>;
  /** MCP servers with their switch and state (none when MCP is not assembled). */
  servers?(): Promise<ServerLine[]>;
  /** Switches an MCP server: off stops it and takes its tools away; on starts it. Setting it again changes nothing. */
  setServer?(name: string, on: boolean, by: string): Promise<void>;
  /** Skills with their switch and verdict line (none when no skill is found). */
  skills?(): Array<{ name: string; on: boolean; loaded: boolean; line: string }>;
  /** Switches a skill's tools off or on together. Setting it again changes nothing. */
  setSkill?(name: string, on: boolean, by: string): Promise<void>;
  /** The effective configuration (kazma.yaml, the environment and run-time settings), secrets masked. */
  effective(): unknown;
  /** MCP servers as configured, secrets masked, shown in `/config show` under `mcp.servers`. */
  maskedServers?(): Promise<unknown[]>;
  audit(
    entry: { command: string; outcome: 'changed' | 'read'; detail?: string },
    ctx: { actor: { platform: string; id: string; displayName?: string }; chat: string },
    tx: Db,
  ): Promise<void>;
  /** `/config users` (absent: not offered). */
  users?: SubcommandBranch;
  /** `/config prompt` and `/config model` (absent: not offered). */
  preferences?: Omit<PreferenceCommandsPort, 'audit'>;
}

/** One MCP server in `/config tools list` and `kazma tools list`. */
export interface ServerLine {
  name: string;
  on: boolean;
  trust: string;
  state: string;
  toolCount: number;
  lastError?: string;
}

/** A built-in tool's line in the lists. */
export function toolLine(t: { name: string; on: boolean; tier: string }): string {
  return (
    `${t.on ? '🟢' : '⚪'} ${t.name} — ${t.on ? 'on' : 'off'} — ` +
    `${t.tier === 'safe' ? 'runs freely' : `asks first (${t.tier})`}`
  );
}

/** An MCP server's line: switch, trust, state (the masked reason when it failed) and tool count. */
export function serverLine(s: ServerLine): string {
  const icon = !s.on ? '⚪' : s.state === 'running' ? '🟢' : s.state === 'failed' ? '🔴' : '🟡';
  const trust = s.trust === 'trusted' ? 'trusted (runs freely)' : 'untrusted (asks first)';
  const state =
    s.state === 'failed' ? `failed: ${(s.lastError ?? 'unknown error').replace(/\s+/g, ' ').slice(0, 300)}` : s.state;
  return (
    `${icon} ${s.name} — MCP server, ${s.on ? 'on' : 'off'} — ${trust} — ${state} — ${s.toolCount} ` +
    `tool${s.toolCount === 1 ? '' : 's'}`
  );
}

/**
 * A toggle, once per event: the target (the switch's opposite as it stands now) is chosen and audited in the
 * journalled transaction (with `save`'s writes); taken up again after a crash, the event gets the target chosen
 * the first time, never a second flip.
 */
async function toggleOnce(
  ctx: CommandContext,
  port: ConfigCommandPort,
  switched: { name: string; on: boolean },
  save?: (tx: Db, on: boolean) => Promise<void>,
): Promise<boolean> {
  const { on } = await ctx.once(`tools toggle ${switched.name}`, async (tx) => {
    const on = !switched.on;
    await save?.(tx, on);
    await port.audit(
      { command: `tools toggle ${switched.name}`, outcome: 'changed', detail: on ? 'on' : 'off' },
      ctx,
      tx,
    );
    return { on };
  });
  return on;
}

/** `/config tools list`: every tool, MCP server and skill, with its switch. */
async function listTools(port: ConfigCommandPort, ctx: CommandContext): Promise<void> {
  const servers = (await port.servers?.()) ?? [];
  const skills = port.skills?.() ?? [];
  const lines = [
    ...port.tools().map(toolLine),
    ...(servers.length ? ['MCP servers:', ...servers.map(serverLine)] : []),
    ...(skills.length ? ['Skills:', ...skills.map((s) => s.line)] : []),
  ];
  return ctx.reply(['Tools:', ...lines, 'Switch one with /config tools toggle <name>.'].join('\n'));
}

/** `/config tools toggle <name>`: a tool, an MCP server or a skill, found by its lower-case `name`. */
async function toggleTool(port: ConfigCommandPort, ctx: CommandContext, name: string): Promise<void> {
  const by = ctx.actor.displayName ?? `${ctx.actor.platform}:${ctx.actor.id}`;
  const tools = port.tools();
  const tool = tools.find((t) => t.name.toLowerCase() === name);
  const servers = tool ? [] : ((await port.servers?.()) ?? []);
  const server = servers.find((s) => s.name.toLowerCase() === name);
  if (server && port.setServer) {
    const on = await toggleOnce(ctx, port, server);
    await port.setServer(server.name, on, by);
    return ctx.reply(
      on
        ? `MCP server ${server.name} is on again and starting: its tools are offered from the next message ` +
            `(saved; survives restarts).`
        : `MCP server ${server.name} is off and stopped: its tools are not offered from the next message ` +
            `(saved; survives restarts).`,
    );
  }
  // A skill is switched whole; one that was refused or failed has no tools to switch.
  const skill = tool || server ? undefined : port.skills?.().find((s) => s.name.toLowerCase() === name);
  if (skill?.loaded && port.setSkill) {
    const on = await toggleOnce(ctx, port, skill);
    await port.setSkill(skill.name, on, by);
    return ctx.reply(
      `Skill ${skill.name} is ${on ? 'on again: its tools are offered' : 'off: its tools are not offered'} ` +
        `from the next message (saved; survives restarts).`,
    );
  }
  if (skill) return ctx.reply(`Skill ${skill.name} has no tools to switch: ${skill.line}`);
  if (!tool) {
    const known = [
      ...tools.map((t) => t.name),
      ...servers.map((s) => s.name),
      ...(port.skills?.() ?? []).map((s) => s.name),
    ];
    const guess = didYouMean(name, known);
    return ctx.reply(
      `There is no tool "${name}".${guess ? ` Did you mean ${guess}?` : ''} ` +
        `Tools: ${tools.map((t) => t.name).join(', ')}.` +
        (servers.length ? ` MCP servers: ${servers.map((s) => s.name).join(', ')}.` : ''),
    );
  }
  const on = await toggleOnce(ctx, port, tool, (tx, on) => port.setTool(tx, tool.name, on, by));
  return ctx.reply(
    on
      ? `${tool.name} is on again: the model is offered it from the next message (saved; survives restarts).`
      : `${tool.name} is off: the model is not offered it from the next message (saved; survives restarts).`,
  );
}

/** `/config show` and `/config export`: the effective configuration, secrets masked; the read is audited. */
async function showConfig(port: ConfigCommandPort, ctx: CommandContext, how: 'show' | 'export'): Promise<void> {
  await ctx.once(how, async (tx) => {
    await port.audit({ command: how, outcome: 'read' }, ctx, tx);
    return true;
  });
  const effective = port.effective() as Record<string, unknown>;
  if (port.maskedServers) effective.mcp = { ...(effective.mcp as object), servers: await port.maskedServers() };
  const yaml = stringify(effective, { lineWidth: 0 }).trimEnd();
  return ctx.reply(
    how === 'show'
      ? `Effective configuration (secrets masked):\n${yaml}`
      : `# kazma.yaml, exported (secrets redacted: put them back as \${ENV} or vault:// pointers)\n${yaml}`,
  );
}

/**
 * `/config` (operators only): tools on and off at run time, and the effective configuration. A change
 * is saved in the database (never in kazma.yaml), applies to the next model request, and is audited.
 * The agent cannot reach it: commands are never tools.
 */
export function configCommand(port: ConfigCommandPort): ChatCommand {
  const table: SubcommandTable = {
    command: 'config',
    ignoreCase: true,
    subcommands: {
      tools: {
        subcommands: {
          list: { run: (ctx) => listTools(port, ctx) },
          toggle: {
            params: '<name>',
            required: { see: '/config tools list' },
            run: (ctx, { words: [name] }) => toggleTool(port, ctx, name!.toLowerCase()),
          },
        },
        none: (ctx) => listTools(port, ctx),
      },
      show: { run: (ctx) => showConfig(port, ctx, 'show') },
      export: { run: (ctx) => showConfig(port, ctx, 'export') },
      ...(port.users && { users: port.users }),
      ...(port.preferences && {
        prompt: promptSubcommand({ ...port.preferences, audit: port.audit }),
        model: modelSubcommand({ ...port.preferences, audit: port.audit }),
      }),
    },
  };
  return {
    name: 'config',
    summary: `change settings (operators): ${usageLines(table).join(' · ')}`,
    operatorOnly: true,
    serial: false,
    writes: true,
    run: runSubcommands(table),
  };
}
