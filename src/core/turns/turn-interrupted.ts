import { KazmaError } from '../errors.ts';

/** A turn was stopped by a shutdown; it was neither finished nor failed, and is taken up at the next start. */
export class TurnInterruptedError extends KazmaError {
  constructor(threadId: string, cause: unknown) {
    super(
      'turn_interrupted',
      `the turn on ${threadId} was stopped by a shutdown and will be taken up again at the next start`,
      { cause },
    );
  }
}
