// The public face of core/effects: the effect journal and the refusal that happens before any effect.
export { EffectJournal, runWithJournal, type BeginReceipt, type JournalOutcome, type JournalRun } from './journal.ts';
export { canonicalArgsHash, canonicalJson } from './canonical.ts';
export {
  EffectArgsMismatchError,
  EffectReceiptStateError,
  EffectUnknownError,
  effectUnknownMessage,
  type EffectKey,
  type UnknownReceipt,
} from './errors.ts';
export { RefusedBeforeEffect } from './refused.ts';
