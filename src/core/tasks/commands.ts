import { type ChatRef, type Actor, ellipsis } from '../surface/index.ts';
import { type ChatCommand, runSubcommands, type StatusSection } from '../commands/index.ts';
import type { Db, TaskState } from '../db/index.ts';
import type { RecordedTask } from './service.ts';
import { taskStateLine } from './card.ts';
import type { TaskRow } from './transition.ts';

/** What the task commands use of the tasks module. */
export interface TaskCommandsPort {
  /** Writes the task's rows on `tx` (the command's journalled transaction). */
  record(tx: Db, input: { goal: string; origin: ChatRef; requester: Actor }): Promise<RecordedTask>;
  /** Sends its card and queues it, after `record` committed; doing it again queues nothing new. */
  launch(recorded: RecordedTask): Promise<void>;
  get(taskId: string): Promise<TaskRow | undefined>;
  cancel(taskId: string): Promise<{ ok: true; task: TaskRow } | { ok: false; reason: string }>;
  /** A chat's tasks, newest first. */
  ofChat(chat: ChatRef): Promise<TaskRow[]>;
}

/** `/task <goal>` and `/task cancel <id>`. */
function taskCommand(port: TaskCommandsPort): ChatCommand {
  return {
    name: 'task',
    summary: 'run a goal in the background: /task <goal>; /task cancel <id>',
    serial: false,
    writes: true,
    run: runSubcommands({
      command: 'task',
      ignoreCase: true,
      subcommands: {
        // `/task cancel the meeting notes` is a goal: only an id may follow `cancel`.
        cancel: {
          params: '<task id>',
          required: { see: '/tasks' },
          maxWords: 1,
          async run(ctx, { words: [id] }) {
            const task = await port.get(id!);
            // The one who asked for it, or an operator; nobody else learns it exists.
            const mine = task && task.requester.platform === ctx.actor.platform && task.requester.id === ctx.actor.id;
            if (!task || (!mine && ctx.role !== 'operator')) return ctx.reply(`There is no task ${id} you may cancel.`);
            const outcome = await port.cancel(id!);
            return ctx.reply(outcome.ok ? `Cancelled task ${id}.` : `Could not cancel: ${outcome.reason}.`);
          },
        },
      },
      // Any other text is the goal.
      async other(ctx, { rest }) {
        // The status card (through the outbox) is the answer: it says the task is queued, and moves with it.
        // Recorded once per event: taken up again after a crash, it queues the same task, not a second one.
        const recorded = await ctx.once('task', async (tx) => {
          const { taskId, cards, children } = await port.record(tx, {
            goal: rest,
            origin: ctx.chat,
            requester: ctx.actor,
          });
          return { taskId, cards, children };
        });
        await port.launch(recorded);
      },
      usage: () => 'Usage: /task <goal> starts a background task; /task cancel <id> cancels one; /tasks lists them.',
    }),
  };
}

/** `/tasks`: this chat's recent tasks. */
function tasksCommand(port: TaskCommandsPort): ChatCommand {
  return {
    name: 'tasks',
    summary: "list this chat's background tasks",
    serial: false,
    async run(ctx) {
      const tasks = await port.ofChat(ctx.chat);
      if (tasks.length === 0) return ctx.reply('No background tasks in this chat. Start one with /task <goal>.');
      const lines = tasks.map(
        (t) =>
          `${t.id} — ${taskStateLine(t.state)} — ` +
          `${ellipsis(t.goal, 61)}${t.state === 'failed' && t.error ? ` (${t.error})` : ''}`,
      );
      return ctx.reply(['Background tasks here, newest first:', ...lines].join('\n'));
    },
  };
}

export function taskCommands(port: TaskCommandsPort): ChatCommand[] {
  return [taskCommand(port), tasksCommand(port)];
}

/** The tasks line of /status: what is queued, running or waiting in this chat. */
export function taskStatus(port: TaskCommandsPort): StatusSection {
  return {
    name: 'tasks',
    async lines(chat) {
      const open: TaskState[] = ['queued', 'running', 'waiting_approval'];
      const counts = open.map((state) => [state, 0] as [TaskState, number]);
      for (const task of await port.ofChat(chat)) for (const entry of counts) if (entry[0] === task.state) entry[1]++;
      return [`tasks: ${counts.map(([state, n]) => `${n} ${state.replace('_', ' ')}`).join(', ')}`];
    },
  };
}
