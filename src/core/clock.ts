/**
 * Where the core reads the time. Every part takes one (default {@link systemClock}), so grant TTLs,
 * approval expiry, stall thresholds and schedules can be tested with a clock the test moves.
 *
 * @example
 * const clock: Clock = { now: () => new Date('2026-12-24T18:00:00Z') };
 */
export interface Clock {
  now(): Date;
}

/** The machine's clock. */
export const systemClock: Clock = { now: () => new Date() };
