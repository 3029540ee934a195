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

/** kazma.yaml (or the environment it reads) is wrong. `issues` name each key path and the reason. */
export class ConfigError extends KazmaError {
  readonly issues: readonly string[];
  constructor(issues: readonly string[]) {
    super('config_invalid', `kazma.yaml is not valid:\n  ${issues.join('\n  ')}`);
    this.issues = issues;
  }
}

/** Something Kazma needs at start (database, Redis, a lock) is not available; the message says how to fix it. */
export class StartupError extends KazmaError {
  constructor(code: string, message: string, options?: { cause?: unknown }) {
    super(code, message, options);
  }
}
