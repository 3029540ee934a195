// The public face of core/commands.
export { parseCommand, type ParsedCommand } from './parse.ts';
export { CommandRegistry, DuplicateCommandError, type ChatCommand, type CommandContext, type CommandServices } from './registry.ts';
export { builtinCommands, formatUptime, helpCommand, newCommand, statusCommand } from './builtin.ts';
export { approvalCommands, approvalsCommand, approveCommand, denyCommand } from './approvals.ts';
