import type { ChatRef } from '../surface/index.ts';
import type { Problem, WorkKind } from '../db/index.ts';

/** One work item in trouble, as a kind's scan sees it. */
export interface Finding {
  /** The item's id in its own table (a task id, an outbox id, `<platform>:<event id>` for a turn). */
  workId: string;
  problem: Problem;
  /** When the trouble began: the last progress, or the entry into the state it is stuck in. */
  since: Date;
  /** One line a person understands: what the work is and what is wrong with it. */
  detail: string;
  /** The chat the work came from, if any; its incident card goes there. */
  chat?: ChatRef;
}

/** What a person may do about an incident besides Dismiss. */
export type IncidentAction = 'retry' | 'cancel';

/**
 * One kind of long work the supervisor watches. `scan` reads the kind's own table and never writes
 * to it: the supervisor judges, the work's owner acts (through `act`, on a person's decision).
 */
export interface WatchedKind {
  kind: WorkKind;
  /** The tables (with a status column) this kind watches: the declared-kinds test reads these. */
  tables: readonly string[];
  /** Every item of this kind in trouble at `now`, given its threshold. */
  scan(input: { now: Date; stallAfterMs: number }): Promise<Finding[]>;
  /** The buttons an incident card of this kind offers besides Dismiss. */
  actions: readonly IncidentAction[];
  /**
   * Carries out a person's decision; returns what happened, in a line. Keyed by the work's state (a
   * compare-and-set, a job id): it runs again when a stop or a failure left the decision's effect owed,
   * and must then do nothing new if the first run got through.
   */
  act(action: IncidentAction, workId: string): Promise<string>;
}

/** How far back an item that ended in failure still opens an incident (older failures were seen before). */
export const FAILURE_LOOKBACK_MS = 24 * 60 * 60_000;

export function ago(now: Date, ms: number): Date {
  return new Date(now.getTime() - ms);
}
