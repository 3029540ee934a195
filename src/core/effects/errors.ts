import type { EffectReceipt } from '../db/index.ts';
import { KazmaError } from '../errors.ts';

/** The identity of one tool call in the journal: the model's tool_call id within a thread. */
export interface EffectKey {
  threadId: string;
  callId: string;
}

/**
 * A call id came back with a different tool or different arguments than its receipt records. Neither
 * replaying the old result nor running the new call is safe, so the caller must treat this as a bug
 * (a model or checkpoint reusing ids), not as a retry.
 */
export class EffectArgsMismatchError extends KazmaError {
  readonly key: EffectKey;
  readonly recorded: { tool: string; argsHash: string };
  readonly presented: { tool: string; argsHash: string };
  constructor(
    key: EffectKey,
    recorded: { tool: string; argsHash: string },
    presented: { tool: string; argsHash: string },
  ) {
    super(
      'effect_args_mismatch',
      `tool call ${key.callId} in thread ${key.threadId} was recorded as \`${recorded.tool}\` with args ` +
        `${recorded.argsHash.slice(0, 12)}…, but is now \`${presented.tool}\` with args ` +
        `${presented.argsHash.slice(0, 12)}…; ` +
        `refusing to replay or rerun it. A tool_call id must name one call only.`,
    );
    this.key = key;
    this.recorded = recorded;
    this.presented = presented;
  }
}

/** `finish` found no `started` receipt for the key: it was never begun, or it was already finished. */
export class EffectReceiptStateError extends KazmaError {
  readonly key: EffectKey;
  constructor(key: EffectKey, found: string) {
    super(
      'effect_receipt_state',
      `cannot finish tool call ${key.callId} in thread ${key.threadId}: its receipt is ${found}, not started`,
    );
    this.key = key;
  }
}

/** What the ⚠️ text needs from a receipt. */
export type UnknownReceipt = Pick<EffectReceipt, 'tool' | 'startedAt'>;

/**
 * The user-facing text for an effect that started but never finished. It says what is known (the
 * tool started, when), what is not (whether it took effect), what Kazma did (nothing more), and what
 * the person should do. `check` names the thing to look at; default: whether the tool made its change.
 *
 * @example
 * effectUnknownMessage(receipt, { check: 'whether notes.txt in the workspace has the new line' })
 * // "⚠️ I started `write_file` at 2026-01-02 10:03:04 UTC but never saw it finish (most likely Kazma
 * //  restarted while it ran), so I cannot tell whether it took effect, and I did not run it again.
 * //  Check whether notes.txt in the workspace has the new line and tell me how to continue."
 */
export function effectUnknownMessage(receipt: UnknownReceipt, options: { check?: string } = {}): string {
  const when = receipt.startedAt
    .toISOString()
    .replace('T', ' ')
    .replace(/\.\d+Z$/, ' UTC');
  const check = options.check ?? `whether \`${receipt.tool}\` made its change`;
  return (
    `⚠️ I started \`${receipt.tool}\` at ${when} but never saw it finish (most likely Kazma restarted while it ran), ` +
    `so I cannot tell whether it took effect, and I did not run it again. Check ${check} and tell me how to continue.`
  );
}

/**
 * An effect that started and never finished, for callers that prefer throwing to the `unknown`
 * outcome of runWithJournal. The message is {@link effectUnknownMessage}, fit to show as is.
 */
export class EffectUnknownError extends KazmaError {
  readonly receipt: EffectReceipt;
  constructor(receipt: EffectReceipt, options: { check?: string } = {}) {
    super('effect_unknown', effectUnknownMessage(receipt, options));
    this.receipt = receipt;
  }
}
