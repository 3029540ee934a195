import type { ToolContext, ToolDefinition } from '../define.ts';

/** The call a guard judges: the tool as registered and its arguments, already validated by its schema. */
export interface GuardCall {
  tool: ToolDefinition;
  args: Record<string, unknown>;
}

/**
 * One named check that runs before any effect (see {@link createGuardList} for the order).
 *
 * `check` throws `RefusedBeforeEffect` to refuse; its `reason` goes to the model and the operator, so
 * say what to do instead. Any other throw also refuses (a broken guard fails closed). A guard must not
 * change anything: it runs before an approval card exists, again right before the effect, and again
 * whenever a graph step is re-run. `check` is a method so guards with narrower types still fit the list.
 *
 * @example
 * const noFridays: Guard = {
 *   name: 'commitment',
 *   check: () => { if (new Date().getDay() === 5) throw new RefusedBeforeEffect('no changes on Fridays'); },
 * };
 */
export interface Guard {
  readonly name: string;
  check(call: GuardCall, ctx: ToolContext): void | Promise<void>;
}
