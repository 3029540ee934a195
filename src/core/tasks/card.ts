// THE status message of a task, in any state: one card in the origin chat, edited in place as the task
// moves (queued → running → waiting for approval → done / failed / cancelled). It has no buttons; a
// task is cancelled with `/task cancel <id>`.
import { type Card, clipText } from '../surface/index.ts';
import type { TaskState } from '../db/index.ts';
import type { TaskRow } from './transition.ts';

const STATE_LINES: Record<TaskState, string> = {
  queued: '⏳ queued',
  running: '⚙️ running',
  waiting_approval: '✋ waiting for approval',
  waiting_subtasks: '🧩 waiting for its subtasks',
  done: '✅ done',
  failed: '⚠️ failed',
  cancelled: '🚫 cancelled',
};

/** How many characters of the goal a card shows. */
const GOAL_CHARS = 300;

export function taskStateLine(state: TaskState): string {
  return STATE_LINES[state];
}

export function taskCard(task: TaskRow): Card {
  const shown = clipText(task.goal, GOAL_CHARS);
  const goal =
    shown.length < task.goal.length ? `${shown}… (${task.goal.length - shown.length} more characters)` : task.goal;
  const by = task.requester.operator ?? task.requester.displayName ?? task.requester.id;
  const footer =
    task.state === 'failed' && task.error
      ? task.error
      : task.state === 'done'
        ? 'The answer is below.'
        : task.state === 'cancelled'
          ? undefined
          : `/task cancel ${task.id}`;
  return {
    title: `Task ${task.id}`,
    fields: [
      { label: 'Goal', value: goal },
      { label: 'State', value: taskStateLine(task.state) },
      { label: 'Asked by', value: by },
    ],
    buttons: [],
    ...(footer && { footer }),
  };
}
