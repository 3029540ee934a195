// The embedded database's housekeeping. PostgreSQL's autovacuum keeps a server's tables lean and its
// planner informed; PGlite runs no autovacuum, so without this nothing ever did:
//  - every turn moves its inbox row received → running → done and its outbox row sending → sent, and
//    each move leaves the old version's index entries behind. A turn's own statements walk them: after
//    3,500 messages, the statement that takes a chat's next row cost 0.71 ms instead of 0.24, and it
//    kept growing with every message ever handled. A VACUUM of that much took 26 ms.
//  - the planner never had statistics, so it guessed row counts (one checkpoint read hashed a whole
//    thread's history because of such a guess; see checkpoint-read.ts).
//
// Input: the open PGlite, how often. Output: a handle whose `stop` ends it (Database.close calls it).
// Invariant: at most one run at a time; a run holds PGlite's transaction mutex (PGlite.query), so it
// waits for an open transaction and never lands inside one. A failed run is reported and the next one
// tries again; it never stops the process.
import type { PGlite } from '@electric-sql/pglite';

/** How often by default: the dead entries of ~10 minutes of a busy chat cost a VACUUM of a few ms. */
export const DEFAULT_UPKEEP_INTERVAL_MS = 10 * 60_000;

export interface PgliteUpkeep {
  /** Runs the housekeeping now (also what the timer calls); resolves when it is done. */
  runNow(): Promise<void>;
  /** No more runs; resolves when a run under way has ended (close the database after it). */
  stop(): Promise<void>;
}

export function startPgliteUpkeep(client: PGlite, options: { intervalMs: number; onError?: (error: unknown) => void }): PgliteUpkeep {
  let running: Promise<void> | undefined;
  let stopped = false;
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
  const timer = options.intervalMs > 0 ? setInterval(() => void runNow(), options.intervalMs) : undefined;
  timer?.unref(); // housekeeping never keeps the process alive
  return {
    runNow,
    stop: async () => {
      stopped = true;
      if (timer) clearInterval(timer);
      await running;
    },
  };
}
