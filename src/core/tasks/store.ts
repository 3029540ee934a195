import { randomBytes } from 'node:crypto';
import { desc, eq, inArray, sql } from 'drizzle-orm';
import { type Db, type StoredActor, tasks } from '../db/index.ts';
import type { TaskRow } from './transition.ts';

/** `tk_` and 8 random base64url characters: short enough to type in `/task cancel`. */
export function newTaskId(): string {
  return `tk_${randomBytes(6).toString('base64url')}`;
}

/** The thread a task runs on: its own, never its chat's. */
export function taskThreadId(taskId: string): string {
  return `task:${taskId}`;
}

/** The task a thread belongs to, if it is a task's thread. */
export function taskIdOfThread(threadId: string): string | undefined {
  return threadId.startsWith('task:') ? threadId.slice('task:'.length) : undefined;
}

export async function insertTask(
  db: Db,
  task: {
    id: string;
    goal: string;
    originChat?: string;
    requester: StoredActor;
    parentId?: string;
    state?: 'queued' | 'waiting_subtasks';
  },
): Promise<TaskRow> {
  const [row] = await db
    .insert(tasks)
    .values({ ...task, threadId: taskThreadId(task.id) })
    .returning();
  return row!;
}

export async function getTask(db: Db, id: string): Promise<TaskRow | undefined> {
  const [row] = await db.select().from(tasks).where(eq(tasks.id, id));
  return row;
}

/** A task's subtasks, oldest first. */
export async function subtasksOf(db: Db, parentId: string): Promise<TaskRow[]> {
  return db.select().from(tasks).where(eq(tasks.parentId, parentId)).orderBy(tasks.createdAt, tasks.id);
}

/** Tasks that wait for a worker: queued, running (maybe on a worker that died), or waiting on their subtasks. */
export async function waitingTasks(db: Db): Promise<TaskRow[]> {
  return db
    .select()
    .from(tasks)
    .where(inArray(tasks.state, ['queued', 'running', 'waiting_subtasks']))
    .orderBy(tasks.createdAt, tasks.id);
}

/** A chat's tasks, newest first. */
export async function tasksOfChat(db: Db, chat: string, limit = 10): Promise<TaskRow[]> {
  return db.select().from(tasks).where(eq(tasks.originChat, chat)).orderBy(desc(tasks.createdAt)).limit(limit);
}

/** Every chat's tasks, newest first (the web page's list). */
export async function recentTasks(db: Db, limit = 100): Promise<TaskRow[]> {
  return db.select().from(tasks).orderBy(desc(tasks.createdAt)).limit(limit);
}

/** The task made progress (a model call, a tool call): the supervisor's signal that it is alive. */
export async function touchTask(db: Db, id: string): Promise<void> {
  await db.update(tasks).set({ progressAt: sql`now()` }).where(eq(tasks.id, id));
}
