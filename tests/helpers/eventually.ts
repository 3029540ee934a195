// The one way tests wait for something that happens in the background (a reply from a fake platform, a
// row in the database, a log line of a child process): poll, and when time is up say what was awaited
// and what was last seen, so a failing test explains itself instead of "condition not met in time".

/** Options for {@link eventually}. */
export interface EventuallyOptions {
  /** Give up after this long; default 15,000 ms. */
  timeoutMs?: number;
  /** Pause between two reads; default 25 ms. */
  intervalMs?: number;
}

/**
 * Reads until `pick` returns something (anything but `undefined` or `false`), then returns it. After
 * the timeout it throws naming `what` and the last value read. A `read` that throws ends the wait with
 * that error at once: throw there when waiting longer cannot help (e.g. the child process exited).
 * `what` may be a function, evaluated only on failure, to show state from that moment (a child's stderr).
 *
 * @example
 * const card = await eventually(() => fake.messages(chat), (ms) => ms.find((m) => m.buttons.length > 0), 'a card with buttons');
 * await eventually(() => llm.attempts.length, (n) => n > 0, 'the first model call', 5_000);
 */
export async function eventually<T, R>(
  read: () => T | Promise<T>,
  pick: (value: T) => R | undefined | false,
  what: string | (() => string),
  options: number | EventuallyOptions = {},
): Promise<R> {
  const { timeoutMs = 15_000, intervalMs = 25 } = typeof options === 'number' ? { timeoutMs: options } : options;
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const last = await read();
    const picked = pick(last);
    if (picked !== undefined && picked !== false) return picked;
    if (Date.now() > deadline) {
      const awaited = typeof what === 'function' ? what() : what;
      throw new Error(`timed out after ${timeoutMs} ms waiting for ${awaited}; last read: ${preview(last)}`);
    }
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
  }
}

/** The value as JSON, cut so a large read does not drown the message. */
function preview(value: unknown): string {
  let text: string | undefined;
  try {
    text = JSON.stringify(value, null, 1);
  } catch {
    text = undefined; // circular or BigInt: fall back to String()
  }
  text ??= String(value);
  return text.length > 3000 ? `${text.slice(0, 3000)}… (${text.length - 3000} more characters)` : text;
}
