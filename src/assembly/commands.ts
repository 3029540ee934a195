// The chat commands every platform offers, in /help's order, and the /status sections in theirs.
import type { Clock } from '../core/clock.ts';
import { helpCommand, startCommand, statusCommand, uptimeSection } from '../core/commands/index.ts';
import type { Modules } from './modules.ts';

export function registerCommands(m: Modules, clock: Clock): void {
  const { commands } = m;
  for (const command of [
    helpCommand,
    ...m.agent.commands,
    statusCommand,
    ...m.approvals.commands,
    ...m.tasks.commands,
    ...m.schedules.commands,
    ...(m.memory?.commands ?? []),
    ...m.runs.commands,
    m.settings.command,
    m.pairing.command,
    startCommand,
  ])
    commands.register(command);
  for (const section of [
    m.agent.status,
    m.approvals.status,
    m.tasks.status,
    m.schedules.status,
    m.runs.status,
    m.skills.status,
    uptimeSection(clock),
  ])
    commands.addStatus(section);
}
