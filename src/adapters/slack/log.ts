// Bolt and WebClient log through their own Logger interface; this hands their lines to Kazma's pino
// logger (which masks secrets), so "rate limited, retrying in 1 s" appears with everything else.
import { format } from 'node:util';
import { LogLevel, type Logger as BoltLogger } from '@slack/bolt';
import type { Logger } from '../../core/log/index.ts';

const LEVELS: Record<string, LogLevel> = {
  trace: LogLevel.DEBUG,
  debug: LogLevel.DEBUG,
  info: LogLevel.INFO,
  warn: LogLevel.WARN,
};

/** A Bolt Logger writing to `logger` (component `slack`); its level follows Kazma's log.level. */
export function boltLogger(logger: Logger): BoltLogger {
  const log = logger.child({ component: 'slack' });
  return {
    debug: (...msg: unknown[]) => log.debug(format(...msg)),
    info: (...msg: unknown[]) => log.info(format(...msg)),
    warn: (...msg: unknown[]) => log.warn(format(...msg)),
    error: (...msg: unknown[]) => log.error(format(...msg)),
    // Kazma's log.level decides; Bolt asking for INFO must not turn Kazma's debug lines off or on.
    setLevel: () => {},
    getLevel: () => LEVELS[log.level] ?? LogLevel.ERROR,
    setName: () => {},
  };
}
