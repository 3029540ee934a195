import { KazmaError } from '../errors.ts';

/**
 * A tool call was refused before anything changed. Nothing ran, so no effect receipt exists and the
 * model may correct the call and try again; `reason` is written for the model and the operator.
 *
 * @example
 * throw new RefusedBeforeEffect('`rm -rf /` would delete the whole filesystem');
 */
export class RefusedBeforeEffect extends KazmaError {
  readonly reason: string;
  constructor(reason: string, options?: { cause?: unknown }) {
    super('refused_before_effect', `refused before any effect: ${reason}`, options);
    this.reason = reason;
  }
}
