// The drives this process runs now, by thread, so `/stop` can end a chat's running turn from outside the
// chat's queue (where the turn itself holds the place). Each drive has its own AbortController (see
// GraphDrive.drive); a stop aborts it and marks it stopped, which the drive tells apart from a shutdown.
import type { Actor } from '../../surface/index.ts';

/** A drive as {@link RunningTurns.track} returns it: whether it was stopped, and its end. */
export interface TrackedDrive {
  /** A person stopped it (`/stop`): not a shutdown, not a failure. */
  readonly stopped: boolean;
  /** The drive ended: it can no longer be stopped. */
  end(): void;
}

/** What {@link RunningTurns.stop} did: stopped the thread's drive, refused the one asking, or found none. */
export type StopOutcome = 'stopped' | 'refused' | 'nothing';

interface Entry {
  requester: Actor;
  controller: AbortController;
  stopped: boolean;
}

/** One per process (built with the agent): the running drives of every thread. */
export class RunningTurns {
  readonly #drives = new Map<string, Set<Entry>>();

  /** Tracks a drive on `threadId` for `requester` until its `end()`; a stop aborts `controller`. */
  track(threadId: string, requester: Actor, controller: AbortController): TrackedDrive {
    const entry: Entry = { requester, controller, stopped: false };
    const drives = this.#drives.get(threadId) ?? new Set<Entry>();
    this.#drives.set(threadId, drives.add(entry));
    return {
      get stopped() {
        return entry.stopped;
      },
      end: () => {
        drives.delete(entry);
        if (drives.size === 0 && this.#drives.get(threadId) === drives) this.#drives.delete(threadId);
      },
    };
  }

  /** Stops every drive running on `threadId`, when `may` allows it for each one's requester. */
  stop(threadId: string, may: (requester: Actor) => boolean): StopOutcome {
    const drives = [...(this.#drives.get(threadId) ?? [])].filter((entry) => !entry.stopped);
    if (drives.length === 0) return 'nothing';
    if (!drives.every((entry) => may(entry.requester))) return 'refused';
    for (const entry of drives) {
      entry.stopped = true;
      entry.controller.abort(new Error('stopped by /stop'));
    }
    return 'stopped';
  }
}
