import type { ChatRef } from '../surface/index.ts';
import { actorFromStored } from '../decisions/index.ts';
import type { ApprovalQuestion, Decision, Gate, ResumeDecision } from './port.ts';
import type { GateRow } from './transition.ts';

/** A gate row as the rest of the core sees it. */
export function gateFromRow(row: GateRow): Gate {
  const call: ApprovalQuestion = {
    kind: 'tool_approval',
    callId: row.callId,
    tool: row.tool,
    args: row.args,
    tier: row.tier ?? 'unknown',
    reason: row.reason ?? 'needs approval',
    ...(row.rewritten && { rewritten: row.rewritten }),
  };
  return {
    gateId: row.id,
    threadId: row.threadId,
    interruptId: row.interruptId,
    ...(row.originChat && { chat: row.originChat as ChatRef }),
    requester: actorFromStored(row.requester),
    call,
    state: row.state,
    ...(row.decision && { decision: row.decision }),
    ...(row.denyReason && { denyReason: row.denyReason }),
    ...(row.decidedBy && { decidedBy: row.decidedBy.operator ?? row.decidedBy.displayName ?? row.decidedBy.id }),
    ...(row.decidedPlatform && { decidedPlatform: row.decidedPlatform }),
    ...(row.claimedAt && { decidedAt: row.claimedAt }),
    ...(row.error && { error: row.error }),
    createdAt: row.createdAt,
    updatedAt: row.updatedAt,
    expiresAt: row.expiresAt,
    ...(row.policy && { policy: row.policy, approvals: row.approvals }),
    ...(row.escalatedAt && { escalatedAt: row.escalatedAt }),
  };
}

/** The value a decided gate resumes its graph with (who decided, and a deny reason for the model). */
export function resumeOf(gate: Gate, decision: Decision): ResumeDecision {
  return {
    decision,
    ...(gate.decidedBy && { by: gate.decidedBy }),
    ...(gate.denyReason && { reason: gate.denyReason }),
  };
}
