import type { ChatRef } from '../chat/ref.ts';
import type { Actor } from '../chat/types.ts';
import type { StoredActor } from '../db/schema/approvals.ts';
import type { ApprovalQuestion, Gate } from './port.ts';
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
  };
}

function actorFromStored(stored: StoredActor | null): Actor {
  if (!stored) return { platform: 'unknown', id: 'unknown' };
  return { platform: stored.platform, id: stored.id, ...((stored.displayName ?? stored.operator) && { displayName: stored.displayName ?? stored.operator }) };
}
