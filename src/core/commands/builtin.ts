import type { Clock } from '../clock.ts';
import type { ChatCommand, StatusSection } from './registry.ts';

/** `/help`: the commands and what they do. */
export const helpCommand: ChatCommand = {
  name: 'help',
  summary: 'list the commands',
  serial: false,
  async run(ctx) {
    const lines = ctx.commands.list().map((c) => `/${c.name} — ${c.summary}${c.operatorOnly ? ' (operators)' : ''}`);
    await ctx.reply(['Commands:', ...lines, 'Anything else is a message for the agent.'].join('\n'));
  },
};

/** `/status`: every module's section for this chat (model, thread, pending approvals, uptime …). */
export const statusCommand: ChatCommand = {
  name: 'status',
  summary: 'show the model, this chat’s thread, pending approvals and uptime',
  serial: false,
  async run(ctx) {
    await ctx.reply(['Kazma status', ...(await ctx.commands.status(ctx.chat))].join('\n'));
  },
};

/** The uptime line of /status, from the moment this is called. */
export function uptimeSection(clock: Clock): StatusSection {
  const startedAt = clock.now().getTime();
  return { name: 'uptime', lines: async () => [`uptime: ${formatUptime(clock.now().getTime() - startedAt)}`] };
}

/** The commands every Kazma has, whatever modules it runs. */
export function builtinCommands(): ChatCommand[] {
  return [helpCommand, statusCommand];
}

/** `3725000` → `1h 2m 5s`. */
export function formatUptime(ms: number): string {
  const s = Math.floor(ms / 1000);
  const parts = [
    [Math.floor(s / 86400), 'd'],
    [Math.floor(s / 3600) % 24, 'h'],
    [Math.floor(s / 60) % 60, 'm'],
  ] as const;
  const head = parts.filter(([n], i) => n > 0 || parts.slice(0, i).some(([m]) => m > 0)).map(([n, u]) => `${n}${u}`);
  return [...head, `${s % 60}s`].join(' ');
}
