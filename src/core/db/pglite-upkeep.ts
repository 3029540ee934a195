// The embedded database's housekeeping. PostgreSQL's autovacuum keeps a server's tables lean and its
// planner informed; PGlite runs no autovacuum, so without this nothing ever did:
//  - every turn moves its inbox row received → running → done and its outbox row sending → sent, and
//    each move leaves the old version's index entries behind. A turn's own statements walk them: after
//    3,500 messages, the statement that takes a chat's next row cost 0.71 ms instead of 0.24, and it
//    kept growing with every message ever handled; after one VACUUM (ANALYZE), 150 ms there, 0.13 ms.
//  - the planner never had statistics, so it guessed row counts (one checkpoint read hashed a whole
//    thread's history because of such a guess; see checkpoint-read.ts).
//
// Input: the open PGlite, how often (the first run a minute after open at most). Output: a handle whose `stop` ends it
// (Database.close calls it). Invariant: at most one run at a time; a run holds PGlite's transaction mutex
// (PGlite.query), so it waits for an open transaction and never lands inside one. A failed run is reported and the next
// one tries again; it never stops the process.
import type { PGlite } from '@electric-sql/pglite';

/**
 * How often by default: often enough that dead entries stay few, rare enough that its pause (~0.15 s at 4,000 messages)
 * is not felt.
 */
export const DEFAULT_UPKEEP_INTERVAL_MS = 10 * 60_000;

export interface PgliteUpkeep {
  /** Runs the housekeeping now (also what the timer calls); resolves when it is done. */
  runNow(): Promise<void>;
  /** No more runs; resolves when a run under way has ended (close the database after it). */
  stop(): Promise<void>;
}

/** The first run comes sooner: a data dir a Kazma of before used has never been vacuumed or analysed. */
const FIRST_RUN_AFTER_MS = 60_000;

export function startPgliteUpkeep(
  client: PGlite,
  options: { intervalMs: number; onError?: (error: unknown) => void },
): PgliteUpkeep {
  let running: Promise<void> | undefined;
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  const runNow = () =>
    (running ??= (async () => {
      try {
        if (!stopped && !client.closed) await client.query('VACUUM (ANALYZE)');
      } catch (error) {
        if (!stopped && !client.closed) options.onError?.(error);
      } finally {
        running = undefined;
      }
    })());
  const schedule = (delayMs: number) => {
    if (stopped || options.intervalMs <= 0) return;
    timer = setTimeout(() => void runNow().then(() => schedule(options.intervalMs)), delayMs);
    timer.unref(); // housekeeping never keeps the process alive
  };
  // Not at start: a start waits for nothing it does not need (a VACUUM of a large data dir takes a while).
  schedule(Math.min(options.intervalMs, FIRST_RUN_AFTER_MS));
  return {
    runNow,
    stop: async () => {
      stopped = true;
      clearTimeout(timer);
      await running;
    },
  };
}
