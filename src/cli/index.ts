import { EXIT, type Subcommand } from './common.ts';
import { keepYoungGenerationSmall } from './heap.ts';
import { usageErrorLine } from './usage-errors.ts';
import { kazmaVersion } from './version.ts';

/**
 * Subcommands by their words (two-word commands keyed with a space), loaded on demand: `config check`
 * should not pay for loading the agent, the platforms and the database drivers.
 */
export const subcommands: Record<string, () => Promise<Subcommand>> = {
  init: async () => (await import('./commands/init.ts')).init,
  start: async () => (await import('./commands/start.ts')).start,
  worker: async () => (await import('./commands/worker.ts')).worker,
  chat: async () => (await import('./commands/chat.ts')).chat,
  migrate: async () => (await import('./commands/migrate.ts')).migrate,
  'migrate-data': async () => (await import('./commands/migrate-data.ts')).migrateData,
  'config check': async () => (await import('./commands/config-check.ts')).configCheck,
  doctor: async () => (await import('./commands/doctor.ts')).doctor,
  'mcp add': async () => (await import('./commands/mcp.ts')).mcpAdd,
  'mcp remove': async () => (await import('./commands/mcp.ts')).mcpRemove,
  'mcp test': async () => (await import('./commands/mcp.ts')).mcpTest,
  'mcp list': async () => (await import('./commands/mcp.ts')).mcpList,
  'tools list': async () => (await import('./commands/tools.ts')).toolsList,
  'tools toggle': async () => (await import('./commands/tools.ts')).toolsToggle,
  vault: async () => (await import('./commands/vault.ts')).vault,
  'approvals export': async () => (await import('./commands/approvals.ts')).approvalsExport,
  'hub sign': async () => (await import('./commands/hub.ts')).hubSign,
  'hub validate': async () => (await import('./commands/hub.ts')).hubValidate,
  'hub list': async () => (await import('./commands/hub.ts')).hubList,
  'hub info': async () => (await import('./commands/hub.ts')).hubInfo,
  'hub search': async () => (await import('./commands/hub.ts')).hubSearch,
  'agent-skills install': async () => (await import('./commands/agent-skills.ts')).agentSkillsInstall,
  'agent-skills sign': async () => (await import('./commands/agent-skills.ts')).agentSkillsSign,
  'agent-skills list': async () => (await import('./commands/agent-skills.ts')).agentSkillsList,
  'agent-skills remove': async () => (await import('./commands/agent-skills.ts')).agentSkillsRemove,
};

async function help(): Promise<string> {
  const width = Math.max(...Object.keys(subcommands).map((k) => k.length));
  const entries = await Promise.all(
    Object.entries(subcommands).map(async ([name, load]) => [name, await load()] as const),
  );
  const lines = entries.map(([name, c]) => `  ${name.padEnd(width)}  ${c.summary}`);
  return (
    `Usage: kazma <command> [options]\n\nCommands:\n${lines.join('\n')}\n\nRun "kazma <command> --help" for a ` +
    `command's options; "kazma --version" prints the version.`
  );
}

async function main(argv: string[]): Promise<number> {
  const two = argv.slice(0, 2).join(' ');
  const [name, rest] = subcommands[two] ? [two, argv.slice(2)] : [argv[0] ?? '', argv.slice(1)];
  const load = subcommands[name];
  if (!load) {
    if (name === '' || name === '--help' || name === '-h' || name === 'help') {
      console.log(await help());
      return EXIT.ok;
    }
    if (name === '--version' || name === '-v' || name === 'version') {
      console.log(`kazma ${kazmaVersion()}`);
      return EXIT.ok;
    }
    if (name === 'config') console.error('kazma: "config" needs a subcommand: kazma config check');
    else if (name === 'hub' || name === 'agent-skills')
      console.error(
        `kazma: "${name}" needs a subcommand: ${Object.keys(subcommands)
          .filter((k) => k.startsWith(`${name} `))
          .map((k) => `kazma ${k}`)
          .join(', ')}`,
      );
    else {
      // Loaded only here: the CLI's start does not pay for the configuration module.
      const { didYouMean } = await import('../core/config/index.ts');
      const guess = didYouMean(name, Object.keys(subcommands));
      console.error(`kazma: unknown command "${name}"${guess ? ` (did you mean "kazma ${guess}"?)` : ''}`);
    }
    console.error(await help());
    return EXIT.usage;
  }
  // Before the command's modules load: the commands that keep running keep a small young generation.
  if (name === 'start' || name === 'worker' || name === 'chat') keepYoungGenerationSmall();
  const command = await load();
  if (rest.includes('--help') || rest.includes('-h')) {
    console.log(command.usage);
    return EXIT.ok;
  }
  try {
    return await command.run(rest);
  } catch (error) {
    const line = await usageErrorLine(name, command.usage, error);
    if (!line) throw error;
    console.error(line);
    return EXIT.usage;
  }
}

// Exit explicitly: after a graceful stop, a client library that keeps a socket open (a Redis connection
// that lived through an outage) must not keep the process alive past its stop.
process.exit(await main(process.argv.slice(2)));
