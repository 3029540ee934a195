// The public face of core/effects.
export { canonicalArgsHash } from './canonical.ts';
export { effectUnknownMessage } from './errors.ts';
export { EffectJournal, runWithJournal, type JournalOutcome } from './journal.ts';
export { RefusedBeforeEffect } from './refused.ts';
export { CommandJournal, type JsonValue } from './command-journal.ts';
