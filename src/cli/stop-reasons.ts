// Why a running Kazma stops: an operator's signal, or an error nothing in Kazma caught. Node's own answer
// to the second is to print a stack to stderr and exit at once — outside the JSON log, without letting
// go of leases, the data dir's lock or connections. Kazma's answer: say it in the log (fatal, with the
// error), stop the same graceful way a SIGTERM does, and exit 1 so a supervisor restarts it. Carrying on
// is not an option: the failed code may have left its state half-changed. Nothing accepted is lost by
// stopping — the inbox, the outbox and the effect journal take work up again at the next start.
import type { Logger } from '../core/log/index.ts';

export type StopReason =
  | { kind: 'signal'; signal: NodeJS.Signals }
  | { kind: 'unexpected'; origin: 'unhandledRejection' | 'uncaughtException'; error: unknown };

export interface StopReasons {
  /** The first reason to stop. */
  readonly first: Promise<StopReason>;
  /** Takes the listeners away (after the stop has finished). */
  dispose(): void;
}

/**
 * Listens for SIGTERM/SIGINT and for errors nothing caught; `first` resolves with the first of them. Every
 * unexpected error is logged at fatal, the ones during the graceful stop too (they no longer end the
 * process at once, so the stop can finish).
 *
 * @example
 * const reasons = listenForStop(logger);
 * const reason = await reasons.first;
 * await kazma.stop();
 * reasons.dispose();
 * return reason.kind === 'signal' ? EXIT.ok : EXIT.failure;
 */
export function listenForStop(logger: Logger): StopReasons {
  let settle!: (reason: StopReason) => void;
  const first = new Promise<StopReason>((resolve) => (settle = resolve));
  const onSignal = (signal: NodeJS.Signals) => {
    logger.info({ signal }, 'stopping');
    settle({ kind: 'signal', signal });
  };
  const unexpected = (origin: 'unhandledRejection' | 'uncaughtException') => (error: unknown) => {
    logger.fatal(
      { err: error, origin },
      'an error nothing in Kazma caught (a bug): stopping gracefully, then exiting with code 1 for a supervisor to ' +
        'restart; accepted work is taken up again at the next start',
    );
    settle({ kind: 'unexpected', origin, error });
  };
  const onRejection = unexpected('unhandledRejection');
  const onException = unexpected('uncaughtException');
  process.once('SIGTERM', onSignal);
  process.once('SIGINT', onSignal);
  process.on('unhandledRejection', onRejection);
  process.on('uncaughtException', onException);
  return {
    first,
    dispose() {
      process.off('SIGTERM', onSignal);
      process.off('SIGINT', onSignal);
      process.off('unhandledRejection', onRejection);
      process.off('uncaughtException', onException);
    },
  };
}
