// Orders the periodic read of saved switches (tools, skills) against this process's own changes.

/**
 * A read of the settings table is the table as its statement found it. One that began before a change
 * made here was saved would put the old value back (until the next read, a few seconds later): a tool
 * or skill just switched off would be callable again meanwhile. Such a read is dropped; the next one
 * sees the change.
 *
 * Inputs: local changes (switch, then save) and reads. Output: a read's value, or `stale` when a local
 * change began or ended while it ran. Invariant: a value given back was read with no local change under way.
 */
export class LocalChanges {
  /** Bumped as a change begins and as it ends, so a read that overlapped either sees a new number. */
  #ticks = 0;
  #underWay = 0;

  /** Runs a local change: switching in memory and saving it. */
  async change<T>(work: () => Promise<T>): Promise<T> {
    this.#ticks++;
    this.#underWay++;
    try {
      return await work();
    } finally {
      this.#underWay--;
      this.#ticks++;
    }
  }

  /** Reads, and gives back the value only when no local change overlapped the read. */
  async read<T>(read: () => Promise<T>): Promise<{ stale: false; value: T } | { stale: true }> {
    const before = this.#ticks;
    const began = this.#underWay;
    const value = await read();
    // Unchanged ticks with nothing under way at the start: nothing began (or ended) meanwhile either.
    return before === this.#ticks && began === 0 ? { stale: false, value } : { stale: true };
  }
}
