// The public face of core/commands.
export { builtinCommands, formatUptime, helpCommand, statusCommand, uptimeSection } from './builtin.ts';
export { parseCommand, type ParsedCommand } from './parse.ts';
export { CommandRegistry, DuplicateCommandError, type ChatCommand, type CommandContext, type StatusSection } from './registry.ts';
