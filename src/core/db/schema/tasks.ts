import { sql } from 'drizzle-orm';
import { check, index, integer, jsonb, pgTable, text, timestamp } from 'drizzle-orm/pg-core';
import type { StoredActor } from './approvals.ts';

/** Every state a task can be in; only transitionTask() (core/tasks/transition.ts) writes it. */
export const TASK_STATES = [
  'queued',
  'running',
  'waiting_approval',
  'waiting_subtasks',
  'done',
  'failed',
  'cancelled',
] as const;
export type TaskState = (typeof TASK_STATES)[number];

/**
 * One background (swarm) task: a goal the agent works on in a thread of its own, on any worker. The row
 * is the truth about where it stands; its BullMQ job only carries the id. `progress_at` moves on every
 * model call, tool call and state change, so a supervisor can tell a stalled task from a slow one.
 */
export const tasks = pgTable(
  'tasks',
  {
    id: text('id').primaryKey(),
    goal: text('goal').notNull(),
    state: text('state', { enum: TASK_STATES }).notNull().default('queued'),
    threadId: text('thread_id').notNull(),
    /** The chat it was started from: its status message and result go there, its questions are asked there. */
    originChat: text('origin_chat'),
    requester: jsonb('requester').$type<StoredActor>().notNull(),
    parentId: text('parent_id'),
    result: text('result'),
    error: text('error'),
    /** Times a worker began it (a worker that died mid-task leaves the next one to continue it). */
    attempts: integer('attempts').notNull().default(0),
    /** Times a person chose Retry after it failed; each retry is a turn of its own on the task's thread. */
    retries: integer('retries').notNull().default(0),
    progressAt: timestamp('progress_at', { withTimezone: true }).notNull().defaultNow(),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
    finishedAt: timestamp('finished_at', { withTimezone: true }),
  },
  (t) => [
    check(
      'tasks_state_valid',
      sql`${t.state} in ('queued','running','waiting_approval','waiting_subtasks','done','failed','cancelled')`,
    ),
    index('tasks_chat_idx').on(t.originChat, t.createdAt),
    index('tasks_thread_idx').on(t.threadId),
    index('tasks_parent_idx').on(t.parentId),
  ],
);
