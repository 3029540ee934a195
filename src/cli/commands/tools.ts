import { sendMessageTool } from '../../core/commitment/index.ts';
import { listServers } from '../../core/mcp/index.ts';
import { scheduleTools } from '../../core/schedules/index.ts';
import { serverLine, toolLine, ToolsOverlay } from '../../core/settings/index.ts';
import { startTaskTool } from '../../core/tasks/index.ts';
import { builtinTools, ToolRegistry } from '../../core/tools/index.ts';
import { agentSkillTools } from '../../core/skills/index.ts';
import { vaultTools } from '../../core/vault/index.ts';
import { createWeb } from '../../core/web/index.ts';
import { createLogger } from '../../core/log/index.ts';
import { createSkills } from '../../core/skills/module.ts';
import { didYouMean } from '../../core/config/index.ts';
import { EXIT, explain, loadOrExplain, type Subcommand } from '../common.ts';
import { CLI_ACTOR, openAdmin, type Admin } from './mcp-admin.ts';

/**
 * Every built-in tool a running Kazma registers (src/assemble.ts), for their names and tiers only: the
 * task, schedule, send_message and Agent Skills tools get no working parts here, because nothing runs
 * them (`kazma tools` only switches them). Skill packages join them in {@link withTools}.
 */
function toolRegistry(admin: Admin, loaded: ReturnType<typeof loadOrExplain>): ToolRegistry {
  const { config } = loaded;
  const registry = new ToolRegistry({ disabled: config.tools.disabled });
  const tools = [
    ...builtinTools({ time: { zone: config.time.zone } }),
    ...vaultTools(admin.vault),
    ...createWeb({ loaded }).tools,
    sendMessageTool({ replies: {} as never, aliases: Object.keys(config.outbound.targets) }),
    ...agentSkillTools({} as never),
    startTaskTool({} as never),
    ...scheduleTools({} as never),
  ];
  for (const tool of tools) registry.register(tool);
  return registry;
}

type Skills = Awaited<ReturnType<typeof createSkills>>['config'];

async function withTools(
  args: readonly string[],
  body: (
    parts: { admin: Admin; registry: ToolRegistry; overlay: ToolsOverlay; skills: Skills },
    rest: string[],
  ) => Promise<number>,
): Promise<number> {
  const i = args.findIndex((a) => a === '--config' || a === '-c');
  const config = i < 0 ? undefined : args[i + 1];
  const rest = i < 0 ? [...args] : [...args.slice(0, i), ...args.slice(i + 2)];
  try {
    const loaded = loadOrExplain(config);
    const admin = await openAdmin(loaded);
    try {
      const registry = toolRegistry(admin, loaded);
      // Skill packages, found, verified and imported as `kazma start` does (a refused skill's code is never
      // imported), after the built-ins so their names are settled the same way. Its log stays quiet: each
      // skill's line below says what the log would.
      const skills = await createSkills({
        loaded,
        db: admin.database.db,
        registry,
        logger: createLogger({ level: 'silent', pretty: false }),
      });
      try {
        // The same switches `/config tools toggle` reads and writes.
        const overlay = new ToolsOverlay({ settings: admin.settings, registry });
        await overlay.apply();
        return await body({ admin, registry, overlay, skills: skills.config }, rest);
      } finally {
        skills.stop();
      }
    } finally {
      await admin.close();
    }
  } catch (error) {
    return explain(error);
  }
}

export const toolsList: Subcommand = {
  summary: 'list the tools, MCP servers and skills, on or off, as /config tools list shows them',
  usage: 'Usage: kazma tools list [--config FILE]',
  run: (args) =>
    withTools(args, async ({ admin, registry, skills }) => {
      console.log('Tools:');
      for (const t of registry.list({ includeDisabled: true }).filter((tool) => !skills.owns(tool.name)))
        console.log(toolLine({ name: t.name, on: !registry.disabled.has(t.name), tier: t.tier ?? 'ask' }));
      const servers = listServers(await admin.servers.servers(), await admin.store.all());
      if (servers.length) console.log(['MCP servers:', ...servers.map(serverLine)].join('\n'));
      const found = skills.list();
      if (found.length) console.log(['Skills:', ...found.map((skill) => skill.line)].join('\n'));
      return EXIT.ok;
    }),
};

export const toolsToggle: Subcommand = {
  summary: 'switch a tool, an MCP server or a skill on or off (saved in the database, as /config tools toggle)',
  usage: `Usage: kazma tools toggle <name> [--config FILE]

<name> is a tool, an MCP server or a skill (see kazma tools list). A running Kazma applies it within a few seconds.`,
  run: (args) =>
    withTools(args, async ({ admin, registry, overlay, skills }, [wanted]) => {
      if (!wanted) return (console.error(toolsToggle.usage), EXIT.usage);
      const name = wanted.toLowerCase();
      const tool = registry
        .list({ includeDisabled: true })
        .find((t) => t.name.toLowerCase() === name && !skills.owns(t.name));
      if (tool) {
        const on = await overlay.toggle(tool.name, CLI_ACTOR);
        console.log(`${tool.name} is ${on ? 'on' : 'off'} (saved; a running Kazma applies it within a few seconds)`);
        return EXIT.ok;
      }
      const servers = await admin.servers.servers();
      const server = servers.find((s) => s.name.toLowerCase() === name);
      if (server) {
        await admin.servers.setEnabled(server.name, !server.enabled, CLI_ACTOR);
        console.log(
          `MCP server ${server.name} is ${server.enabled ? 'off' : 'on'} (saved; a running Kazma ` +
            `${server.enabled ? 'stops' : 'starts'} it within a few seconds)`,
        );
        return EXIT.ok;
      }
      // A skill is switched whole, as from chat; one that was refused or failed has no tools to switch.
      const skill = skills.list().find((s) => s.name.toLowerCase() === name);
      if (skill && !skill.loaded)
        return (
          console.error(`kazma tools toggle: skill ${skill.name} has no tools to switch: ${skill.line}`), EXIT.failure
        );
      if (skill) {
        await skills.setEnabled(skill.name, !skill.on, CLI_ACTOR);
        console.log(
          `skill ${skill.name} is ${skill.on ? 'off' : 'on'}: its tools are ${skill.on ? 'not ' : ''}offered ` +
            `(saved; a running Kazma applies it within a few seconds)`,
        );
        return EXIT.ok;
      }
      const names = [
        ...registry
          .list({ includeDisabled: true })
          .filter((t) => !skills.owns(t.name))
          .map((t) => t.name),
        ...servers.map((s) => s.name),
        ...skills.list().map((s) => s.name),
      ];
      const guess = didYouMean(name, names);
      console.error(
        `kazma tools toggle: there is no tool, MCP server or skill ` +
          `"${wanted}".${guess ? ` Did you mean ${guess}?` : ''} Names: ${names.join(', ')}.`,
      );
      return EXIT.failure;
    }),
};
