import { chat } from './commands/chat.ts';
import { configCheck } from './commands/config-check.ts';
import { doctor } from './commands/doctor.ts';
import { migrate } from './commands/migrate.ts';
import { start } from './commands/start.ts';
import { EXIT, type Subcommand } from './common.ts';

/** Subcommands by their words; two-word commands (`config check`) are keyed with a space. */
export const subcommands: Record<string, Subcommand> = {
  start,
  chat,
  migrate,
  'config check': configCheck,
  doctor,
};

function help(): string {
  const width = Math.max(...Object.keys(subcommands).map((k) => k.length));
  const lines = Object.entries(subcommands).map(([name, c]) => `  ${name.padEnd(width)}  ${c.summary}`);
  return `Usage: kazma <command> [options]\n\nCommands:\n${lines.join('\n')}\n\nRun "kazma <command> --help" for a command's options.`;
}

async function main(argv: string[]): Promise<number> {
  const two = argv.slice(0, 2).join(' ');
  const [name, rest] = subcommands[two] ? [two, argv.slice(2)] : [argv[0] ?? '', argv.slice(1)];
  const command = subcommands[name];
  if (!command) {
    if (name === '' || name === '--help' || name === '-h' || name === 'help') {
      console.log(help());
      return name === '' ? EXIT.usage : EXIT.ok;
    }
    if (name === 'config') console.error('kazma: "config" needs a subcommand: kazma config check');
    else console.error(`kazma: unknown command "${name}"`);
    console.error(help());
    return EXIT.usage;
  }
  if (rest.includes('--help') || rest.includes('-h')) {
    console.log(command.usage);
    return EXIT.ok;
  }
  return command.run(rest);
}

process.exitCode = await main(process.argv.slice(2));
