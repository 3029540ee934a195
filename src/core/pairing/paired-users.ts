import type { Logger } from '../log/index.ts';
import { LocalChanges } from '../settings/index.ts';
import type { PairingStore } from './store.ts';

/**
 * The paired people as the access check reads them: synchronously, from memory (no statement per inbound
 * event). Read at start and every few seconds after, so a `/pair` taken by one process reaches every process
 * on the database; this process's own pairing or removal applies at once. A read that overlapped a local
 * change is dropped (LocalChanges), so it cannot undo it.
 */
export class PairedUsers {
  #users = new Set<string>();
  readonly #local = new LocalChanges();
  #timer: NodeJS.Timeout | undefined;

  constructor(private readonly o: { store: PairingStore; logger?: Logger; onError?: (error: unknown) => void }) {}

  /** True when `<platform>:<user id>` was paired and not removed. */
  has(user: string): boolean {
    return this.#users.has(user);
  }

  /** Runs `save` (the database change) and applies `user`'s new state here when it resolves. */
  async change(user: string, paired: boolean, save: () => Promise<unknown>): Promise<void> {
    await this.#local.change(async () => {
      await save();
      if (paired) this.#users.add(user);
      else this.#users.delete(user);
    });
  }

  async load(): Promise<void> {
    const read = await this.#local.read(() => this.o.store.list());
    if (!read.stale) this.#users = new Set(read.value.map((row) => row.user));
  }

  follow(everyMs: number): void {
    const failed =
      this.o.onError ?? ((error: unknown) => this.o.logger?.warn({ err: error }, 'could not read the paired users'));
    this.#timer = setInterval(() => void this.load().catch(failed), everyMs);
    this.#timer.unref();
  }

  stop(): void {
    clearInterval(this.#timer);
  }
}
