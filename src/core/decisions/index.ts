// The public face of core/decisions.
export { ActionRouter } from './actions.ts';
export { compareAndSet } from './compare-and-set.ts';
export { FirstDecisionWins, type DecisionKind, type DecisionRequest } from './first-wins.ts';
export { Questions, type Question } from './questions.ts';
export { whoMayAnswer } from './who-answers.ts';
export { actorFromStored, clock, decidedBy, storedActor } from './wording.ts';
