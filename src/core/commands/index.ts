// The public face of core/commands.
export {
  builtinCommands,
  formatUptime,
  helpCommand,
  startCommand,
  statusCommand,
  uptimeSection,
} from './builtin.ts';
export { FirstWelcome } from './first-welcome.ts';
export { parseCommand } from './parse.ts';
export { CommandRegistry, UndeclaredCommandWriteError } from './registry.ts';
export type { CommandContext } from './registry.ts';
export type { ChatCommand, StatusSection } from './registry.ts';
export { runSubcommands, usageLines, usageReply } from './subcommands.ts';
export type { SubcommandBranch, SubcommandInput, SubcommandTable } from './subcommands.ts';
