// When a live reply's next show runs: on a timer, or when it is due already at the end of this turn of the event
// loop — a 0 ms timer makes libuv sleep 1 ms first, a wake-up of its own.

/**
 * Runs `run` in `ms` (a timer that keeps no process alive); at once if not later: at the end of this turn of
 * the event loop. That immediate is not unref'd: one that is lets the loop block in its poll until something
 * else wakes it (the next word, 30 ms later), which is what it is here to avoid.
 */
export function after(ms: number, run: () => void): { cancel(): void } {
  if (ms <= 0) {
    const immediate = setImmediate(run);
    return { cancel: () => clearImmediate(immediate) };
  }
  const timer = setTimeout(run, ms);
  timer.unref?.();
  return { cancel: () => clearTimeout(timer) };
}
