import { readFileSync } from 'node:fs';
import { EXIT, type Subcommand } from './common.ts';

/**
 * Subcommands by their words (two-word commands keyed with a space), loaded on demand: `config check`
 * should not pay for loading the agent, the platforms and the database drivers.
 */
export const subcommands: Record<string, () => Promise<Subcommand>> = {
  start: async () => (await import('./commands/start.ts')).start,
  worker: async () => (await import('./commands/worker.ts')).worker,
  chat: async () => (await import('./commands/chat.ts')).chat,
  migrate: async () => (await import('./commands/migrate.ts')).migrate,
  'config check': async () => (await import('./commands/config-check.ts')).configCheck,
  doctor: async () => (await import('./commands/doctor.ts')).doctor,
};

/** The version in package.json, the one place it is written. */
function version(): string {
  const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string };
  return pkg.version;
}

async function help(): Promise<string> {
  const width = Math.max(...Object.keys(subcommands).map((k) => k.length));
  const entries = await Promise.all(Object.entries(subcommands).map(async ([name, load]) => [name, await load()] as const));
  const lines = entries.map(([name, c]) => `  ${name.padEnd(width)}  ${c.summary}`);
  return `Usage: kazma <command> [options]\n\nCommands:\n${lines.join('\n')}\n\nRun "kazma <command> --help" for a command's options; "kazma --version" prints the version.`;
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
      console.log(`kazma ${version()}`);
      return EXIT.ok;
    }
    if (name === 'config') console.error('kazma: "config" needs a subcommand: kazma config check');
    else console.error(`kazma: unknown command "${name}"`);
    console.error(await help());
    return EXIT.usage;
  }
  const command = await load();
  if (rest.includes('--help') || rest.includes('-h')) {
    console.log(command.usage);
    return EXIT.ok;
  }
  return command.run(rest);
}

// Exit explicitly: after a graceful stop, a client library that keeps a socket open (a Redis connection
// that lived through an outage) must not keep the process alive past its stop.
process.exit(await main(process.argv.slice(2)));
