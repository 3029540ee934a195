import { z } from 'zod';
import type { ChatRef } from '../surface/index.ts';
import { defineTool } from '../tools/index.ts';
import type { Tasks } from './service.ts';

/**
 * `start_task`: the agent hands a goal to a background task. It asks for approval (tier `write`): a
 * task runs with the same tools as the chat, so starting one is as consequential as acting. The
 * task's answer goes to the chat the turn came from.
 */
export function startTaskTool(tasks: Pick<Tasks, 'start'>) {
  return defineTool({
    name: 'start_task',
    description:
      'Starts a background task: an agent works on `goal` on its own and posts the answer to this chat when it is ' +
      'done. Give `subtasks` to split the work into parts that run in parallel; the task then combines their ' +
      'results. Use it for long work the person need not wait for; say that you started it.',
    tier: 'write',
    effects: true,
    outside: false,
    input: z.object({
      goal: z.string().trim().min(1).max(4000),
      /** Parts to run in parallel as tasks of their own; the goal's task then combines their results. */
      subtasks: z.array(z.string().trim().min(1).max(4000)).max(10).optional(),
    }),
    async run({ goal, subtasks }, ctx) {
      const turn = ctx.turn;
      if (!turn) throw new Error('start_task can only be used in a conversation');
      // From a task's own thread, the new task answers to the same chat the task came from.
      const origin = turn.chat.startsWith('thread:') ? undefined : (turn.chat as ChatRef);
      const task = await tasks.start({
        goal,
        requester: turn.requester,
        ...(origin && { origin }),
        ...(subtasks?.length && { subtasks }),
      });
      const parts = subtasks?.length ? ` with ${subtasks.length} subtasks running in parallel` : '';
      return (
        `Started background task ${task.id}${parts}; its answer will be posted${origin ? ' in this chat' : ''} ` +
        `when it is done.`
      );
    },
  });
}
