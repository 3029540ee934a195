// What a previous run left undelivered, undecided or unanswered, taken up at start in this order: sends
// whose outcome is unknown, decisions' owed effects, gates, reminders, tasks' jobs, then unfinished chat
// events.
import type { Logger } from '../core/log/index.ts';
import type { Base } from './base.ts';
import type { Modules } from './modules.ts';
import { SENDING_STALE_MS } from './sweeps.ts';

export interface RecoveryOptions {
  /** When this process started: on the embedded database, anything untouched since is the last run's. */
  bootedAt: Date;
  /** turns.lease_ttl: on PostgreSQL, an event whose lease lapsed this long ago belongs to no live process. */
  turnLeaseTtlMs: number;
  logger: Logger;
}

export async function recoverAtStart(base: Base, m: Modules, o: RecoveryOptions): Promise<void> {
  const solo = base.database.kind === 'pglite';
  // On the embedded database this process is the only one: a row left `sending`, or a decision's effect
  // left owed, before it started is the last run's: marked "delivery unknown" (the effect carried out) now,
  // not after the staleness wait other processes need. Not one moved since: the platforms and workers
  // started before this may be sending, or deciding, already.
  // Notes forgotten after the backup this database was restored from: forgotten again (memory/journal.ts).
  await m.memory?.memory.replayForgets();
  await m.memory?.memory.prepareSearch();
  await base.outbox.recover({ sendingBefore: solo ? o.bootedAt : new Date(Date.now() - SENDING_STALE_MS) });
  await m.questions.recoverEffects(solo ? { staleBefore: o.bootedAt } : {});
  await m.approvals.reconciler.sweep();
  await m.schedules.schedules.recover();
  // Queued tasks: their jobs may be gone (Redis restarted empty while Kazma was down); one it still
  // holds is not doubled. A running task is left to BullMQ's stall check, the memory watch and, past
  // runs.stall_after.task, an incident with Retry: at start nothing tells its job lost from one running.
  await m.tasks.tasks.requeue({ onlyQueued: true });
  // The embedded database has one owner (the data-dir lock): an unfinished event untouched since this
  // process started is the last run's; on PostgreSQL another live process may hold some, so only those
  // whose lease has lapsed.
  const found = await m.chat.pipeline.recover({
    staleBefore: solo ? o.bootedAt : new Date(Date.now() - o.turnLeaseTtlMs),
  });
  if (found > 0) o.logger.info({ events: found }, 'taking up events a previous run left unfinished');
}
