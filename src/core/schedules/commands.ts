import type { ChatRef, Actor } from '../surface/index.ts';
import {
  type ChatCommand,
  type CommandContext,
  runSubcommands,
  type StatusSection,
  type SubcommandTable,
  usageLines,
  usageReply,
} from '../commands/index.ts';
import type { Db } from '../db/index.ts';
import { KazmaError } from '../errors.ts';
import type { Anchoring } from './anchor.ts';
import type { ReminderInput } from './inputs.ts';
import type { ScheduleRow } from './store.ts';

/** What the schedule commands use of the schedules module. */
export interface ScheduleCommandsPort {
  /** Writes a reminder's row on `tx` (the command's journalled transaction). */
  recordReminder(tx: Db, input: ReminderInput): Promise<ScheduleRow>;
  /** Anchors a time that names a remembered thing ("the day before my exam") to the person's memory. */
  anchor(input: { words: string; chat: ChatRef; requester: Actor }): Promise<Anchoring>;
  /** Writes a cron job's row on `tx`. */
  recordCron(tx: Db, input: { pattern: string; prompt: string; chat: ChatRef; requester: Actor }): Promise<ScheduleRow>;
  /** Gives a recorded row its job, keyed by the row id (so again makes none); throws for a refused pattern. */
  arm(row: ScheduleRow): Promise<ScheduleRow>;
  cancel(id: string): Promise<boolean>;
  get(id: string): Promise<ScheduleRow | undefined>;
  list(chat: ChatRef): Promise<ScheduleRow[]>;
  format(at: Date): string;
}

/** A schedule error's own words (a time in the past, an unreadable time, a bad pattern). */
const why = (error: unknown) => (error instanceof KazmaError ? error.message : String(error));

/**
 * Records the row once per event (taken up again after a crash, the same row, not a second one), then
 * gives it its job, which is keyed by the row id.
 */
async function recordOnce(
  ctx: CommandContext,
  port: ScheduleCommandsPort,
  name: string,
  record: (tx: Db) => Promise<ScheduleRow>,
): Promise<ScheduleRow> {
  const { scheduleId } = await ctx.once(name, async (tx) => ({ scheduleId: (await record(tx)).id }));
  return port.arm((await port.get(scheduleId))!);
}

function remindCommand(port: ScheduleCommandsPort): ChatCommand {
  return {
    name: 'remind',
    summary: 'remind this chat later: /remind <when> <text> ("in 30m", "tomorrow 9am", "بعد ١٠ دقائق")',
    serial: false,
    writes: true,
    async run(ctx) {
      if (!ctx.rest.trim())
        return ctx.reply('Usage: /remind <when> <text>, e.g. /remind in 30m stretch, /remind tomorrow 9am standup.');
      try {
        // From memory, without a model call: "the day before my exam at 9am" becomes its date, or a question.
        const anchoring = await port.anchor({ words: ctx.rest, chat: ctx.chat, requester: ctx.actor });
        if (anchoring.kind === 'ask') return ctx.reply(anchoring.question);
        const from = anchoring.kind === 'anchored' ? `${anchoring.said}: ${anchoring.from}` : undefined;
        const words = anchoring.kind === 'anchored' ? anchoring.words : ctx.rest;
        const row = await recordOnce(ctx, port, 'remind', (tx) =>
          port.recordReminder(tx, { words, chat: ctx.chat, requester: ctx.actor, ...(from && { from }) }),
        );
        return ctx.reply(
          `⏰ I will remind this chat on ${port.format(row.dueAt!)}: ${row.text} (${from ? `${from}; ` : ''}` +
            `${row.id}; /jobs cancel ${row.id} to cancel).`,
        );
      } catch (error) {
        return ctx.reply(`Not scheduled: ${why(error)}.`);
      }
    },
  };
}

function cronCommand(port: ScheduleCommandsPort): ChatCommand {
  const table: SubcommandTable = {
    command: 'cron',
    ignoreCase: false,
    subcommands: {
      add: {
        params: '"<cron pattern>" <prompt>',
        async run(ctx, { rest }) {
          const match = /^"([^"]+)"\s+(.+)$/s.exec(rest);
          if (!match) return ctx.reply(usageReply(table));
          try {
            const row = await recordOnce(ctx, port, 'cron add', (tx) =>
              port.recordCron(tx, {
                pattern: match[1]!.trim(),
                prompt: match[2]!.trim(),
                chat: ctx.chat,
                requester: ctx.actor,
              }),
            );
            return ctx.reply(
              `🔁 "${row.pattern}" (${row.zone}) will run: ${row.text} (${row.id}; /jobs cancel ${row.id} to stop).`,
            );
          } catch (error) {
            return ctx.reply(`Not scheduled: ${why(error)}.`);
          }
        },
      },
    },
    usage: ([add]) =>
      `Usage: ${add}, e.g. /cron add "0 9 * * 1-5" summarise yesterday's alerts. ` +
      '/jobs lists, /jobs cancel <id> stops.',
  };
  return {
    name: 'cron',
    summary: `run a task on a schedule: ${usageLines(table).join('; ')}`,
    serial: false,
    writes: true,
    run: runSubcommands(table),
  };
}

function jobsCommand(port: ScheduleCommandsPort): ChatCommand {
  const list = async (ctx: CommandContext) => {
    const rows = await port.list(ctx.chat);
    if (rows.length === 0)
      return ctx.reply('Nothing is scheduled in this chat. /remind <when> <text> or /cron add "<pattern>" <prompt>.');
    const lines = rows.map((r) =>
      r.kind === 'reminder'
        ? `${r.id} — ⏰ ${port.format(r.dueAt!)} — ${r.text}`
        : `${r.id} — 🔁 "${r.pattern}" (${r.zone}) — ${r.text}`,
    );
    return ctx.reply(['Scheduled here:', ...lines, 'Cancel one with /jobs cancel <id>.'].join('\n'));
  };
  const table: SubcommandTable = {
    command: 'jobs',
    ignoreCase: true,
    subcommands: {
      cancel: {
        params: '<id>',
        required: { see: '/jobs' },
        async run(ctx, { words: [id] }) {
          const row = await port.get(id!);
          const mine = row && row.requester.platform === ctx.actor.platform && row.requester.id === ctx.actor.id;
          if (!row || row.chat !== ctx.chat || (!mine && ctx.role !== 'operator'))
            return ctx.reply(`There is no scheduled job ${id} you may cancel here.`);
          return ctx.reply(
            (await port.cancel(id!))
              ? `Cancelled ${id}: it will not run.`
              : `${id} is not scheduled any more (${row.state}).`,
          );
        },
      },
    },
    none: list,
    other: list,
  };
  return {
    name: 'jobs',
    summary: `list this chat's reminders and cron jobs; ${usageLines(table).join('; ')}`,
    serial: false,
    run: runSubcommands(table),
  };
}

export function scheduleCommands(port: ScheduleCommandsPort): ChatCommand[] {
  return [remindCommand(port), cronCommand(port), jobsCommand(port)];
}

/** The /status line: the next reminder in this chat (cron jobs are listed by /jobs). */
export function scheduleStatus(port: ScheduleCommandsPort): StatusSection {
  return {
    name: 'schedules',
    async lines(chat) {
      const next = (await port.list(chat)).find((r) => r.kind === 'reminder');
      return [`next reminder: ${next ? `${next.id} on ${port.format(next.dueAt!)}` : 'none'}`];
    },
  };
}
