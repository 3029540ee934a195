import type { Clock } from '../clock.ts';
import type { Actor } from '../surface/index.ts';
import type { ChatCommand, CommandContext, StatusSection } from './registry.ts';

/** `/help`: the commands this person may run, and what they do (an operator's are marked for operators). */
export const helpCommand: ChatCommand = {
  name: 'help',
  summary: 'list the commands',
  serial: false,
  async run(ctx) {
    const operator = ctx.role === 'operator';
    const lines = ctx.commands
      .list()
      .filter((c) => operator || !c.operatorOnly)
      .map((c) => `/${c.name} — ${c.summary}${c.operatorOnly ? ' (operators)' : ''}`);
    await ctx.reply(['Commands:', ...lines, 'Anything else is a message for the agent.'].join('\n'));
  },
};

const ROLE_WORDS: Record<CommandContext['role'], string> = {
  operator: 'an operator here: you may chat, approve what needs approval, and configure Kazma',
  user: 'a user here: you may chat with Kazma; an operator approves what needs approval',
  chat_member: 'in a chat Kazma answers everyone in: you may chat; an operator approves what needs approval',
};

/**
 * `/start` (Telegram sends it first; any platform may type it): what Kazma is, what this person may do, and
 * their platform id — what an operator puts in `access` to name them. (A stranger never gets here: the
 * access refusal tells them their id and who can let them in.)
 */
export const startCommand: ChatCommand = {
  name: 'start',
  summary: 'what Kazma is, and what you may do here',
  serial: false,
  async run(ctx) {
    await ctx.reply(welcomeText(ctx.role, ctx.actor));
  },
};

/** What `/start` says, and what a person's first direct message is answered with first (first-welcome.ts). */
export function welcomeText(role: CommandContext['role'], actor: Actor): string {
  return [
    '👋 Hello! I am Kazma, a self-hosted AI assistant. Write to me as you would to a colleague: I answer,',
    'use tools, and ask a person before anything risky (a card with Approve / Deny buttons).',
    `You are ${ROLE_WORDS[role]}.`,
    `Your id: ${actor.platform}:${actor.id} (for access in kazma.yaml).`,
    '/help lists the commands you may run.',
  ].join('\n');
}

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
  return [startCommand, helpCommand, statusCommand];
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
