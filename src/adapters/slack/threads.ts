// Which channel threads Kazma takes part in. In a channel Kazma answers only when mentioned; a reply
// in a thread it was mentioned in (or posted in) continues that conversation without a new mention.
// In memory and bounded: after a restart, a mention brings a thread back.
import type { ChatRef } from '../../core/surface/index.ts';

export class KnownThreads {
  readonly #threads = new Set<ChatRef>();
  readonly #max: number;

  /** `max`: threads remembered before the least recently used are forgotten; default 5000. */
  constructor(options: { max?: number } = {}) {
    this.#max = options.max ?? 5000;
  }

  /** Remembers (or refreshes) a thread ChatRef `slack:<channel>:<thread_ts>`. */
  add(thread: ChatRef): void {
    this.#threads.delete(thread);
    this.#threads.add(thread);
    while (this.#threads.size > this.#max) this.#threads.delete(this.#threads.values().next().value!);
  }

  has(thread: ChatRef): boolean {
    return this.#threads.has(thread);
  }
}
