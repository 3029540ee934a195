// A turn reads its thread's latest checkpoint twice: the runner's getState (is this turn already begun?
// a pending question? tools cut off by a crash?) and, right after, LangGraph's own read when the graph is
// invoked. Between the two nothing writes the thread — the runner holds the thread's lease, so no other
// process does, and a write in this process forgets what was kept — so the second read can be the first
// one's result. That saves a statement and a deserialisation of the whole checkpoint per turn.
import { copyCheckpoint, type CheckpointTuple } from '@langchain/langgraph';

/**
 * The latest checkpoint of each thread a reader shares (see {@link share}), kept from one read for the
 * next ones until anything writes the thread.
 *
 * Inputs: reads of a thread's latest checkpoint (no checkpoint id, root namespace) and every write.
 * Output: a fresh copy of the kept tuple for each read while the thread is shared.
 * Invariants:
 *  - Kept only while a `share` scope of that thread is open (the caller holds the thread's lease), and
 *    forgotten at the first write to the thread, and when the last scope ends.
 *  - A read that raced a write is not kept (the write's epoch moved on while it was reading).
 *  - A tuple with pending writes is never kept: LangGraph applies them onto the tuple it is given.
 *  - Every reader gets its own copy of the checkpoint's maps, so one reader's changes never reach another.
 */
export class SharedLatestReads {
  readonly #scopes = new Map<string, number>();
  readonly #kept = new Map<string, CheckpointTuple>();
  readonly #epochs = new Map<string, number>();

  /** Runs `work` with `threadId`'s latest checkpoint read at most once until something writes it. */
  async share<T>(threadId: string, work: () => Promise<T>): Promise<T> {
    this.#scopes.set(threadId, (this.#scopes.get(threadId) ?? 0) + 1);
    try {
      return await work();
    } finally {
      const left = this.#scopes.get(threadId)! - 1;
      if (left > 0) this.#scopes.set(threadId, left);
      else {
        this.#scopes.delete(threadId);
        this.#kept.delete(threadId);
      }
    }
  }

  /** A read of the latest checkpoint: the kept copy, or `read()`'s result (kept when the thread is shared). */
  async latest(
    threadId: string,
    read: () => Promise<CheckpointTuple | undefined>,
  ): Promise<CheckpointTuple | undefined> {
    if (!this.#scopes.has(threadId)) return read();
    const kept = this.#kept.get(threadId);
    if (kept) return copyOf(kept);
    const epoch = this.#epochs.get(threadId) ?? 0;
    const tuple = await read();
    if (
      !tuple ||
      (tuple.pendingWrites?.length ?? 0) > 0 ||
      epoch !== (this.#epochs.get(threadId) ?? 0) ||
      !this.#scopes.has(threadId)
    )
      return tuple;
    this.#kept.set(threadId, tuple);
    return copyOf(tuple);
  }

  /** Something is about to write the thread: forget what was kept and let no read in flight be kept. */
  written(threadId: string): void {
    this.#kept.delete(threadId);
    if (this.#scopes.has(threadId)) this.#epochs.set(threadId, (this.#epochs.get(threadId) ?? 0) + 1);
    else this.#epochs.delete(threadId);
  }
}

function copyOf(tuple: CheckpointTuple): CheckpointTuple {
  return {
    ...tuple,
    config: { ...tuple.config, configurable: { ...tuple.config.configurable } },
    checkpoint: copyCheckpoint(tuple.checkpoint),
    ...(tuple.metadata && { metadata: { ...tuple.metadata } }),
    ...(tuple.pendingWrites && { pendingWrites: [...tuple.pendingWrites] }),
  };
}
