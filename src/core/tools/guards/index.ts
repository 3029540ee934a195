// The public face of core/tools/guards: the one ordered list of named checks before any effect.
export type { Guard } from './guard.ts';
export { createGuardList, firstRefusal, GUARD_ORDER, GuardListError } from './list.ts';
export { guardsOnly, type Authorization, type AuthorizeEffect } from './authorization.ts';
