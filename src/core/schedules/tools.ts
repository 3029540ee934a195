import { z } from 'zod';
import type { ChatRef } from '../surface/index.ts';
import { defineTool, type ToolContext } from '../tools/index.ts';
import type { Schedules } from './service.ts';

/** The chat a scheduled job answers in: the turn's (a task's thread has none of its own). */
function chatOf(ctx: ToolContext): ChatRef {
  const chat = ctx.turn?.chat;
  if (!chat || chat.startsWith('thread:')) throw new Error('scheduling needs a chat to deliver to; this turn has none');
  return chat as ChatRef;
}

/**
 * `schedule_reminder` and `schedule_task`: the agent schedules on the person's behalf. Both ask for
 * approval (tier `write`): a schedule acts later, when nobody is watching.
 */
export function scheduleTools(schedules: Pick<Schedules, 'remind' | 'addCron' | 'format'>) {
  return [
    defineTool({
      name: 'schedule_reminder',
      description:
        'Reminds this chat later. `when`: "in 30 minutes", "tomorrow 9am", "2026-12-24 18:00" (the configured ' +
        'time zone).',
      tier: 'write',
      effects: true,
      outside: false,
      input: z.object({ when: z.string().min(1).max(200), text: z.string().min(1).max(2000) }),
      async run({ when, text }, ctx) {
        const row = await schedules.remind({
          words: `${when} ${text}`,
          chat: chatOf(ctx),
          requester: ctx.turn!.requester,
        });
        return `Scheduled reminder ${row.id} for ${schedules.format(row.dueAt!)}: ${row.text}`;
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
      async run({ pattern, prompt }, ctx) {
        const row = await schedules.addCron({ pattern, prompt, chat: chatOf(ctx), requester: ctx.turn!.requester });
        return `Scheduled ${row.id}: "${row.pattern}" (${row.zone}) runs: ${row.text}`;
      },
    }),
  ];
}
