import { z } from 'zod';
import { RefusedBeforeEffect } from '../effects/index.ts';
import { KazmaError } from '../errors.ts';
import type { ChatRef } from '../surface/index.ts';
import { defineTool, type ToolContext } from '../tools/index.ts';
import { findAnchor } from './anchor-phrase.ts';
import type { Schedules } from './service.ts';

/** The chat a scheduled job answers in: the turn's (a task's thread has none of its own). */
function chatOf(ctx: ToolContext): ChatRef {
  const chat = ctx.turn?.chat;
  if (!chat || chat.startsWith('thread:')) throw new Error('scheduling needs a chat to deliver to; this turn has none');
  return chat as ChatRef;
}

type SchedulesPort = Pick<Schedules, 'remind' | 'addCron' | 'format' | 'anchor'>;

/**
 * A `when` that names a remembered thing ("the day before my exam at 9am"), anchored to the person's
 * memory before any card: the arguments become the absolute date and where it came from, and the card's
 * note says so. Nothing remembered, or a date that cannot be used: refused, with the question to ask.
 */
async function anchored(schedules: SchedulesPort, args: { when: string; text: string }, ctx: ToolContext) {
  const anchoring = await schedules
    .anchor({ words: args.when, chat: chatOf(ctx), requester: ctx.turn!.requester })
    .catch((error: unknown) => {
      if (error instanceof KazmaError) throw new RefusedBeforeEffect(`nothing was scheduled: ${error.message}`);
      throw error;
    });
  if (anchoring.kind === 'plain') return undefined;
  if (anchoring.kind === 'ask')
    throw new RefusedBeforeEffect(`nothing was scheduled; ask the person which date is meant: ${anchoring.question}`);
  const from = `${anchoring.said}: ${anchoring.from}`;
  return {
    args: { ...args, when: anchoring.words, from },
    note: `"${args.when}" is ${schedules.format(anchoring.at)} (${from})`,
  };
}

/**
 * `schedule_reminder` and `schedule_task`: the agent schedules on the person's behalf. Both ask for
 * approval (tier `write`): a schedule acts later, when nobody is watching.
 */
export function scheduleTools(schedules: SchedulesPort) {
  return [
    defineTool({
      name: 'schedule_reminder',
      description:
        'Reminds this chat later. `when`: "in 30 minutes", "tomorrow 9am", "2026-12-24 18:00" (the configured ' +
        'time zone), or a day named by something remembered ("the day before my exam at 9am"), which Kazma ' +
        'anchors to the remembered date.',
      tier: 'write',
      effects: true,
      outside: false,
      input: z.object({
        when: z.string().min(1).max(200),
        text: z.string().min(1).max(2000),
        from: z.string().max(500).optional().describe('Leave out: Kazma fills it in when it anchors a date'),
      }),
      resolve: (args, ctx) => anchored(schedules, args, ctx),
      async run({ when, text, from }, ctx) {
        const row = await schedules.remind({
          words: `${when} ${text}`,
          chat: chatOf(ctx),
          requester: ctx.turn!.requester,
          ...(from && { from }),
        });
        const said = `Scheduled reminder ${row.id} for ${schedules.format(row.dueAt!)}: ${row.text}`;
        return from ? `${said} (${from})` : said;
      },
    }),
    defineTool({
      name: 'schedule_task',
      description:
        'Runs `prompt` as a background task on a cron schedule (5 fields, or 6 with seconds; the configured time ' +
        'zone); each answer is posted in this chat.',
      tier: 'write',
      effects: true,
      outside: false,
      input: z.object({ pattern: z.string().min(1).max(100), prompt: z.string().min(1).max(4000) }),
      // A day named by something remembered is one day, not a cron pattern: never read as one.
      precheck({ pattern }) {
        if (findAnchor(pattern))
          throw new RefusedBeforeEffect(
            `"${pattern}" names one day by something remembered, not a repeating schedule; nothing was ` +
              'scheduled. For a one-off, use schedule_reminder, which anchors that day to memory',
          );
      },
      async run({ pattern, prompt }, ctx) {
        const row = await schedules.addCron({ pattern, prompt, chat: chatOf(ctx), requester: ctx.turn!.requester });
        return `Scheduled ${row.id}: "${row.pattern}" (${row.zone}) runs: ${row.text}`;
      },
    }),
  ];
}
