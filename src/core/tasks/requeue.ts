// Giving waiting tasks their jobs again, from their rows: at start, and when Redis forgot its jobs or the
// database came back (src/assembly/restore.ts).
import type { JobKind } from '../jobs/index.ts';
import type { TasksOptions } from './options.ts';
import { waitingTasks } from './store.ts';

/**
 * Every task that waits for a worker has its job again: Redis may have forgotten it (restarted empty,
 * failed over, flushed), or its attempt failed while the database was down and was dropped. A queued or
 * running task gets its `task.run`, a parent waiting on its subtasks a `task.collect` (which does nothing
 * until they have all ended). By job id: a job Redis still holds is not doubled, and a task that a live
 * worker runs is guarded by its thread's lease and its turn id. Returns how many jobs were asked for.
 */
export async function requeueTasks(
  o: Pick<TasksOptions, 'db' | 'jobs'>,
  kinds: { run: JobKind<{ taskId: string }>; collect: JobKind<{ taskId: string }> },
  options: { onlyQueued?: boolean } = {},
): Promise<number> {
  const waiting = (await waitingTasks(o.db)).filter((task) => !options.onlyQueued || task.state === 'queued');
  const runs = waiting.filter((task) => task.state !== 'waiting_subtasks');
  const parents = waiting.filter((task) => task.state === 'waiting_subtasks');
  await o.jobs.enqueueAll(
    kinds.run,
    runs.map((task) => ({ payload: { taskId: task.id }, options: { jobId: task.id } })),
  );
  await o.jobs.enqueueAll(
    kinds.collect,
    parents.map((task) => ({ payload: { taskId: task.id }, options: { jobId: `collect-${task.id}` } })),
  );
  return waiting.length;
}
