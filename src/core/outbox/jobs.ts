// Outbox delivery as a job kind: the outbox owns the rule (deliver a row once, by compare-and-set),
// the job port carries it (retries with backoff, on any process that works the outbox lane).
import { z } from 'zod';
import type { SurfaceRegistry, ChatRef } from '../surface/index.ts';
import type { Db } from '../db/index.ts';
import type { Clock } from '../clock.ts';
import type { JobKind, JobQueue } from '../jobs/index.ts';
import type { Logger } from '../log/index.ts';
import { deliverOutbox } from './deliver.ts';
import type { OutboxDispatcher } from './port.ts';
import { getOutbox, openOutbox, pruneOutbox, recoverOutbox } from './store.ts';
import { nextPendingPost } from './chat-order.ts';

/**
 * `outbox.deliver {id}`: one row, once; a refused send is retried (8 attempts, from 0.5 s doubling). With
 * `queue`, a post that ended hands its chat on: the next pending post to the same destination, which
 * waited behind it (chat-order.ts), is queued at once instead of at its own retry's backoff — under a job
 * id of its own, since its waiting job may still hold the row's id.
 */
export function outboxDeliveryJob(deps: {
  db: Db;
  surfaces: SurfaceRegistry;
  clock?: Clock;
  queue?: JobQueue;
}): JobKind<{ id: string }> {
  const kind: JobKind<{ id: string }> = {
    name: 'outbox.deliver',
    lane: 'outbox',
    payload: z.object({ id: z.string().min(1) }),
    attempts: 8,
    backoffMs: 500,
    async handle({ id }) {
      const outcome = await deliverOutbox(deps.db, deps.surfaces, id, deps.clock);
      if (deps.queue && (outcome === 'sent' || outcome === 'failed')) {
        const row = await getOutbox(deps.db, id);
        const next = row && row.kind !== 'edit' ? await nextPendingPost(deps.db, row.destination) : undefined;
        if (next) await deps.queue.enqueue(kind, { id: next }, { jobId: `${next}-after-${id}` });
      }
      return outcome;
    },
  };
  return kind;
}

/**
 * Dispatches outbox rows as delivery jobs; the job id is the row id, so a second dispatch of a row is a
 * no-op (the row's own compare-and-set is what guarantees a single send; the job id only saves work).
 */
export class JobOutboxDispatcher implements OutboxDispatcher {
  /** Told of every dispatch (see {@link watch}). */
  readonly #watchers = new Set<(ids: readonly string[]) => void>();

  constructor(
    private readonly deps: {
      queue: JobQueue;
      kind: JobKind<{ id: string }>;
      db: Db;
      surfaces: SurfaceRegistry;
      logger?: Logger;
    },
  ) {}

  async dispatch(ids: string[]): Promise<void> {
    if (ids.length === 0) return;
    // Before the jobs are queued: the rows are committed, and a web page showing their owner (a gate
    // decided, a task moved) redraws as soon as the chat cards are on their way, not after they land.
    for (const watcher of this.#watchers) watcher(ids);
    await this.deps.queue.enqueueAll(
      this.deps.kind,
      ids.map((id) => ({ payload: { id }, options: { jobId: id } })),
    );
  }

  /**
   * Calls `listener` with the ids of every batch of committed outbox rows (cards, edits, replies) this
   * process dispatches: the signal the operators' web page redraws on, the same one every chat card is
   * edited on. Returns the function that stops it.
   */
  watch(listener: (ids: readonly string[]) => void): () => void {
    this.#watchers.add(listener);
    return () => this.#watchers.delete(listener);
  }

  /**
   * At start and on every sweep: rows stuck mid-send since before `sendingBefore` become `unknown`
   * (never re-sent blindly; see recoverOutbox); rows still pending are dispatched again.
   */
  async recover(options: { sendingBefore: Date }): Promise<void> {
    const { pending, unknown } = await recoverOutbox(this.deps.db, options);
    if (unknown.length)
      this.deps.logger?.warn(
        { ids: unknown },
        'outbox deliveries interrupted by a stop are marked unknown, not re-sent',
      );
    await this.dispatch(pending);
  }

  /** On every sweep: deletes replies and edits that ended before `before` (pruneOutbox says which). */
  prune(before: Date): Promise<number> {
    return pruneOutbox(this.deps.db, before);
  }

  /**
   * Waits (up to `timeoutMs`) until no card, edit or reply bound for an attached surface is left to
   * deliver. Rows for a platform that is not attached cannot be delivered here and do not hold it up.
   */
  async settled(timeoutMs = 15_000): Promise<void> {
    const deadline = performance.now() + timeoutMs;
    while (performance.now() < deadline) {
      const open = (await openOutbox(this.deps.db)).filter((row) => this.deps.surfaces.has(row.destination as ChatRef));
      if (open.length === 0) return;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  }
}
