/**
 * Base of every error Kazma raises on purpose. `code` is stable (tests, logs and the HTTP API match on
 * it); the message says what happened and what to do.
 */
export class KazmaError extends Error {
  readonly code: string;
  constructor(code: string, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = new.target.name;
    this.code = code;
  }
}

/**
 * The configuration file (or the environment it reads) is wrong. `issues` name each key path and the
 * reason; `file` is the file as the person named it (default kazma.yaml); `headline` replaces the whole
 * message when one line says it all ("no such file: …").
 */
export class ConfigError extends KazmaError {
  readonly issues: readonly string[];
  constructor(issues: readonly string[], options: { file?: string; headline?: string } = {}) {
    super('config_invalid', options.headline ?? `${options.file ?? 'kazma.yaml'} is not valid:\n  ${issues.join('\n  ')}`);
    this.issues = issues;
  }
}

/** Something Kazma needs at start (database, Redis, a lock) is not available; the message says how to fix it. */
export class StartupError extends KazmaError {
  constructor(code: string, message: string, options?: { cause?: unknown }) {
    super(code, message, options);
  }
}

/**
 * A platform refused a delivery for good — the bot was blocked or removed, the chat is gone, it may not
 * write there — as opposed to a refusal worth retrying (a rate limit, an outage). Adapters say which on
 * their own error classes (`permanent`); the outbox marks such a row failed instead of retrying it.
 */
export function isPermanentRefusal(error: unknown): boolean {
  return (error as { permanent?: unknown } | null)?.permanent === true;
}
