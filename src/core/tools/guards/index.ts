// The public face of core/tools/guards: the one ordered list of named checks before any effect.
export type { Guard, GuardCall } from './guard.ts';
export { createGuardList, firstRefusal, GUARD_ORDER, GuardListError, type GuardListOptions, type GuardSlot } from './list.ts';
export { policyGuard } from './policy.ts';
