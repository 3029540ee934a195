// The public face of core/approvals.
export { ApprovalDecider, type GateResumer } from './decide.ts';
export { resumeOf } from './gate-view.ts';
export {
  type ApprovalBroker,
  type ApprovalQuestion,
  type DecideOutcome,
  type Gate,
  type GatePage,
  type ResumeDecision,
} from './port.ts';
export { ApprovalReconciler, type ResumingRunner } from './reconciler.ts';
