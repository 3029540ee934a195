// The public face of core/approvals.
export { gateAttempts } from './audit-trail.ts';
export { gateCard } from './card.ts';
export { GatePages } from './gate-page.ts';
export { approvalRecords, toCsv, toJsonLines } from './export.ts';
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
