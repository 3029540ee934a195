// `/stop` for a turn another process runs (several `kazma start` on one PostgreSQL). Who runs a thread is
// known: every drive holds the thread's lease, a `thread_leases` row naming its owner process. The process
// that received `/stop` checks who may stop the turn (its requester, read from the thread's checkpoint, or
// an operator) and asks the owner over LISTEN/NOTIFY (db/stop-signal.ts); the owner stops its drive as a
// local `/stop` does, so its "⏹ Stopped." is said once, by it.
import { and, eq, gt, sql } from 'drizzle-orm';
import { type Db, type Database, threadLeases } from '../../db/index.ts';
import type { Logger } from '../../log/index.ts';
import type { Actor } from '../../surface/index.ts';
import type { AgentGraph } from '../graph/graph.ts';
import type { AgentStateValue } from '../graph/state.ts';
import { configOf } from './graph-drive.ts';
import type { RunningTurns, StopOutcome } from './running-turns.ts';

/** Whom a turn with no recorded requester belongs to: nobody, so only an operator may stop it. */
const NOBODY: Actor = { platform: 'unknown', id: '' };

/** Options for {@link RemoteStops}. */
export interface RemoteStopsOptions {
  db: Db;
  signal: NonNullable<Database['stops']>;
  /** This process's name: the owner its leases carry. */
  me: string;
  running: Pick<RunningTurns, 'stop'>;
  graph: Pick<AgentGraph, 'getState'>;
  logger?: Logger;
}

export class RemoteStops {
  readonly #o: RemoteStopsOptions;
  #listening: Promise<() => Promise<void>> | undefined;

  constructor(options: RemoteStopsOptions) {
    this.#o = options;
  }

  /** Starts answering other processes' requests for this process's drives. */
  listen(): void {
    const { signal, me, running, logger } = this.#o;
    this.#listening = signal.listen(me, (threadId) => {
      const outcome = running.stop(threadId, () => true); // who may stop it was checked where /stop was typed
      logger?.info({ thread: threadId, outcome }, '/stop from another process');
      return outcome;
    });
    this.#listening.catch((error: unknown) => {
      logger?.warn({ err: error }, 'cannot hear /stop from other processes; it reaches only turns run here');
    });
  }

  async close(): Promise<void> {
    const unlisten = await this.#listening?.catch(() => undefined);
    this.#listening = undefined;
    await unlisten?.();
  }

  /**
   * Asks the process holding `threadId`'s live lease to stop its drive there, when `may` allows it for the
   * turn's requester, and returns what it did; 'nothing' when no other process holds it (the turn ended, or
   * none ran); 'unconfirmed' when the holder did not answer (stop-signal.ts sends the request again first).
   */
  async stop(threadId: string, may: (requester: Actor) => boolean): Promise<StopOutcome | 'unconfirmed'> {
    const [lease] = await this.#o.db
      .select({ owner: threadLeases.owner })
      .from(threadLeases)
      .where(and(eq(threadLeases.threadId, threadId), gt(threadLeases.expiresAt, sql`now()`)));
    // A lease's owner is its process's name, then `/` and the run holding it (ThreadLeases).
    const holder = lease?.owner.split('/')[0];
    if (!holder || holder === this.#o.me) return 'nothing';
    const values = (await this.#o.graph.getState(configOf(threadId))).values as Partial<AgentStateValue>;
    if (!may(values.turn?.requester ?? NOBODY)) return 'refused';
    const outcome = await this.#o.signal.send(threadId, holder);
    this.#o.logger?.info({ thread: threadId, holder, outcome }, '/stop sent to the process running the turn');
    return outcome;
  }
}
