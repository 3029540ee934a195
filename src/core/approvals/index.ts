// The public face of core/approvals.
export { ApprovalDecider, type GateResumer } from './decide.ts';
export { resumeOf } from './gate-view.ts';
export type {
  ApprovalBroker,
  ApprovalQuestion,
  DecideOutcome,
  Gate,
  GatePage,
  ResumeDecision,
} from './port.ts';
export { ApprovalReconciler, type ResumingRunner } from './reconciler.ts';
