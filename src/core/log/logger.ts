import { pino, type Logger } from 'pino';
import { maskSecrets, maskText } from '../secrets/index.ts';

export type { Logger };

export interface LoggerOptions {
  level?: string;
  /** Configured secret values; they never reach the output, in messages or in fields. */
  secrets?: readonly string[];
  /** Human-readable output (pino-pretty); default: when stdout is a TTY. */
  pretty?: boolean;
  /** Where JSON lines go; default stdout. */
  destination?: NodeJS.WritableStream;
}

/**
 * The one logger factory: JSON lines when not a TTY (for collectors and tests), pretty on a terminal.
 * Every field and message is masked by key name and by value, so a token passed by mistake is hidden.
 */
export function createLogger(options: LoggerOptions = {}): Logger {
  const secrets = options.secrets ?? [];
  const pretty = options.pretty ?? Boolean(process.stdout.isTTY);
  const settings: pino.LoggerOptions = {
    level: options.level ?? 'info',
    base: { pid: process.pid },
    formatters: { log: (fields) => maskSecrets(fields, { secrets }) },
    hooks: {
      logMethod(args, method) {
        const masked = args.map((arg) => (typeof arg === 'string' ? maskText(arg, secrets, { formats: true }) : arg));
        method.apply(this, masked as Parameters<typeof method>);
      },
    },
  };
  // Pretty output goes through pino-pretty's transport, which writes to a file descriptor: stdout, or
  // stderr for `kazma chat` (whose stdout is the conversation).
  const fd = !options.destination ? 1 : options.destination === process.stderr ? 2 : undefined;
  if (pretty && fd !== undefined) {
    return pino({ ...settings, transport: { target: 'pino-pretty', options: { colorize: true, destination: fd } } });
  }
  return pino(settings, (options.destination ?? process.stdout) as pino.DestinationStream);
}
