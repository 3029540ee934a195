import { isDeepStrictEqual } from 'node:util';
import type { Authorization } from './guards/index.ts';

/**
 * What an approval settled about a call's arguments: the rewrite its card showed (`rewritten`, an alias or a
 * date anchored to memory), or none (`null`: the arguments ran as the model sent them).
 */
export interface ApprovedArgs {
  rewritten: Record<string, unknown> | null;
}

/**
 * Why an approved call may not run as it resolves now, or undefined when it resolves as its card showed. What
 * the approver saw is what runs: a rewrite that came out differently (the remembered date moved, an alias now
 * names another chat), or appeared or vanished since the card, refuses the call instead of running it.
 */
export function changedSinceApproval(approved: ApprovedArgs, auth: Authorization): string | undefined {
  const now = auth.kind === 'rewrite' ? auth.args : null;
  // Deep equality, not JSON text: the gate's row (jsonb) gives the keys back in its own order.
  if (isDeepStrictEqual(now, approved.rewritten)) return undefined;
  return (
    'its arguments resolve differently now than on the approved card' +
    (auth.kind === 'rewrite' ? ` (${auth.note})` : '') +
    ', so it did not run; call it again to ask anew'
  );
}
