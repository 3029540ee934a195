/**
 * Where the core reads the time: the one source of now. Every part takes one, handed down from
 * assembleKazma (default {@link systemClock}), so grant TTLs, approval expiry, stall thresholds, stale
 * cut-offs and schedules can be tested with a clock the test moves. Elapsed time (deadlines, throttles,
 * lease renewals) is not now: it is measured with the monotonic `performance.now()`. The architecture
 * test allows no other read of the machine's clock in src/core.
 *
 * @example
 * const clock: Clock = { now: () => new Date('2026-12-24T18:00:00Z') };
 */
export interface Clock {
  now(): Date;
}

/** The machine's clock. */
export const systemClock: Clock = { now: () => new Date() };
