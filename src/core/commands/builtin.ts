import { approvalCommands } from './approvals.ts';
import type { ChatCommand } from './registry.ts';

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

/** `/new`: a fresh conversation for this chat (the old thread stays stored, unused). */
export const newCommand: ChatCommand = {
  name: 'new',
  summary: 'start a fresh conversation in this chat',
  async run(ctx) {
    const thread = await ctx.services.startNewThread(ctx.chat);
    await ctx.reply(`Started a new conversation (thread ${thread}). Earlier messages are forgotten here.`);
  },
};

/** `/status`: model, thread, pending approvals, uptime. */
export const statusCommand: ChatCommand = {
  name: 'status',
  summary: 'show the model, this chat’s thread, pending approvals and uptime',
  serial: false,
  async run(ctx) {
    const [primary, ...fallbacks] = ctx.services.models();
    const model = primary
      ? `${primary}${fallbacks.length > 0 ? ` (fallbacks: ${fallbacks.join(', ')})` : ''}`
      : 'not configured (set model.name and model.api_key or model.base_url in kazma.yaml)';
    await ctx.reply(
      [
        'Kazma status',
        `model: ${model}`,
        `thread: ${await ctx.services.currentThread(ctx.chat)}`,
        `pending approvals: ${await ctx.services.pendingApprovals(ctx.chat)}`,
        `uptime: ${formatUptime(ctx.services.uptimeMs())}`,
      ].join('\n'),
    );
  },
};

/** The commands every Kazma has. */
export function builtinCommands(): ChatCommand[] {
  return [helpCommand, newCommand, statusCommand, ...approvalCommands()];
}

/** `3725000` → `1h 2m 5s`. */
export function formatUptime(ms: number): string {
  const s = Math.floor(ms / 1000);
  const parts = [[Math.floor(s / 86400), 'd'], [Math.floor(s / 3600) % 24, 'h'], [Math.floor(s / 60) % 60, 'm']] as const;
  const head = parts.filter(([n], i) => n > 0 || parts.slice(0, i).some(([m]) => m > 0)).map(([n, u]) => `${n}${u}`);
  return [...head, `${s % 60}s`].join(' ');
}
