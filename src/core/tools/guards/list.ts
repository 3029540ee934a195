import { RefusedBeforeEffect } from '../../effects/index.ts';
import { KazmaError } from '../../errors.ts';
import type { ToolContext } from '../define.ts';
import type { Guard, GuardCall } from './guard.ts';
import { policyGuard } from './policy.ts';

/**
 * The named positions of the guard list, in the order they run. To add a guard, give it a name here at
 * the place it must run, and a field in {@link GuardListOptions}; tests/tools/guards.test.ts pins this.
 *
 * - `policy`: the tool's own precheck ({@link policyGuard}); always present.
 * - `commitment`: core/commitment's refusals no approval can lift (protected settings, catastrophic
 *   shell). Its other decisions (an alias rewritten, a clarify card) need more than a guard can say, so
 *   authorizeEffect (core/commitment/authorize.ts) makes them after this list has run.
 * - `egress`: core/web's check of the URLs a tool declares (spelling, secrets, resolved addresses).
 */
export const GUARD_ORDER = ['policy', 'commitment', 'egress'] as const;

/** A position in {@link GUARD_ORDER}. */
export type GuardSlot = (typeof GUARD_ORDER)[number];

/** The guards later modules supply, one per position; `policy` is always the tool's own precheck. */
export type GuardListOptions = { readonly [S in Exclude<GuardSlot, 'policy'>]?: Guard };

/**
 * The guard list was put together wrongly (an unknown position, a guard in another's place); a bug, caught at start.
 */
export class GuardListError extends KazmaError {
  constructor(message: string) {
    super('guard_list_invalid', message);
  }
}

/**
 * The ordered list of guards a call passes before any effect: before an approval card is shown
 * (ToolRegistry.classify) and right before the effect journal writes a receipt (ToolRegistry.prepare).
 * Positions come from {@link GUARD_ORDER}, whatever the order of the options; validated eagerly, so an
 * unknown position or a guard named for another position throws {@link GuardListError}.
 *
 * @example
 * createGuardList().map((g) => g.name)                                      // ['policy']
 * createGuardList({ egress, commitment }).map((g) => g.name)                // ['policy', 'commitment', 'egress']
 */
export function createGuardList(options: GuardListOptions = {}): readonly Guard[] {
  const given = options as Readonly<Record<string, Guard | undefined>>;
  for (const slot of Object.keys(given)) {
    if (slot === 'policy')
      throw new GuardListError('the "policy" guard is always the tool\'s own precheck; it cannot be replaced');
    if (!(GUARD_ORDER as readonly string[]).includes(slot)) {
      throw new GuardListError(
        `"${slot}" is not a guard position; use one of ${GUARD_ORDER.join(', ')} (or add it to GUARD_ORDER)`,
      );
    }
  }
  const guards: Guard[] = [policyGuard];
  for (const slot of GUARD_ORDER) {
    const guard = slot === 'policy' ? undefined : given[slot];
    if (!guard) continue;
    // The name is what logs, refusals and the order test show, so it must say where the guard runs.
    if (guard.name !== slot)
      throw new GuardListError(`the guard given as "${slot}" is named "${guard.name}"; name it "${slot}"`);
    guards.push(guard);
  }
  return Object.freeze(guards);
}

/**
 * Runs `guards` in order and stops at the first refusal.
 * Output: its reason, or undefined when every guard let the call through.
 * Invariant: fails closed; a guard that throws anything but RefusedBeforeEffect refuses the call,
 * because a safety check that broke has not said yes.
 */
export async function firstRefusal(
  guards: readonly Guard[],
  call: GuardCall,
  ctx: ToolContext,
): Promise<string | undefined> {
  for (const guard of guards) {
    try {
      await guard.check(call, ctx);
    } catch (error) {
      if (error instanceof RefusedBeforeEffect) return error.reason;
      const message = error instanceof Error ? error.message : String(error);
      return `the safety check of "${call.tool.name}" failed (${guard.name}): ${message}`;
    }
  }
  return undefined;
}
