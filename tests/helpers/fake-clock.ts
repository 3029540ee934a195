import type { Clock } from '../../src/core/clock.ts';

/** A clock the test moves by hand: expiry, TTLs and schedules without waiting in real time. */
export class FakeClock implements Clock {
  #at: number;

  constructor(start = '2026-12-24T18:00:00Z') {
    this.#at = new Date(start).getTime();
  }

  now(): Date {
    return new Date(this.#at);
  }

  advance(ms: number): void {
    this.#at += ms;
  }
}
