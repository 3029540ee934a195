// N of M: an approval under a policy that asks for several. Each approval is counted by compare-and-set on the
// gate row (transition.ts countApproval); the one that completes the quorum is the decision, and first-decision-wins
// does the rest (the resume, the cards). One operator counts once, whatever platform they tap on.
import { randomUUID } from 'node:crypto';
import type { SQL } from 'drizzle-orm';
import type { Db, GateApproval, StoredActor } from '../db/index.ts';
import type { DecisionRequest } from '../decisions/index.ts';
import * as store from './gate-store.ts';
import type { Decision, Gate } from './port.ts';
import { countApproval, type GatePatch, type GateRow } from './transition.ts';

/** Whether a decision is counted toward a quorum (an approval under a policy of more than one) rather than taken. */
export function needsQuorum(gate: Gate, decision: Decision): boolean {
  return decision !== 'deny' && (gate.policy?.approvals ?? 1) > 1;
}

/** What {@link settleByQuorum} needs besides the request. */
export interface QuorumInput {
  request: DecisionRequest<Decision>;
  seen: Gate;
  /** The operator deciding: who counts once. */
  operator: string;
  decidedBy: StoredActor;
  /** The decision's columns, set when the quorum is reached (its `decision` is worked out here). */
  patch: GatePatch;
  /** The compare-and-set's condition that the gate is not past its expiry. */
  notExpired: SQL;
  now: Date;
}

/**
 * Counts one approval. Output: `won` when it completed the quorum (the gate is claimed: resume it), `counted` when it
 * was counted and more are needed, neither when it was not counted (decided or expired meanwhile; or this operator
 * had already approved: audited as `duplicate`), with the gate row as it stands.
 * Invariant: a lost compare-and-set means another approval (or the decision) landed first, so the loop counts again
 * from the row it got back; approvals only grow and stop at the quorum, so it ends within `approvals` rounds.
 */
export async function settleByQuorum(
  db: Db,
  input: QuorumInput,
): Promise<{ won: boolean; question: GateRow | undefined; counted?: boolean }> {
  const { request, operator } = input;
  const policy = input.seen.policy!;
  // Retries of one attempt share its event key, so the attempt keeps one audit row (made its outcome when it lands).
  const eventKey = request.eventKey ?? `attempt:${randomUUID()}`;
  let counted: GateApproval[] = input.seen.approvals ?? [];
  let row: GateRow | undefined;
  for (let round = 0; round <= policy.approvals; round++) {
    if (counted.some((a) => a.operator === operator)) {
      row ??= await store.getGate(db, request.id);
      await store.audit(db, {
        gateId: request.id,
        actor: input.decidedBy,
        decision: request.decision,
        outcome: 'duplicate',
        detail: `${operator} had already approved`,
        eventKey,
        again: round > 0,
      });
      return { won: false, question: row };
    }
    const vote: GateApproval = {
      operator,
      actor: input.decidedBy,
      decision: request.decision === 'always' ? 'always' : 'once',
      at: input.now.toISOString(),
    };
    const approvals = [...counted, vote];
    const last = approvals.length >= policy.approvals;
    // "Always" only when every approver said so: a grant never carries more than all of them gave.
    const decision = approvals.every((a) => a.decision === 'always') ? 'always' : 'once';
    const moved = await countApproval(
      db,
      {
        id: request.id,
        seen: counted.length,
        approvals,
        last,
        patch: { ...input.patch, decision },
        audit: {
          actor: input.decidedBy,
          decision: request.decision,
          detail: `${policy.name}: ${approvals.length} of ${policy.approvals}`,
          eventKey,
          again: round > 0,
        },
      },
      input.notExpired,
    );
    if (moved.ok) return { won: last, question: moved.gate, ...(!last && { counted: true }) };
    row = moved.gate;
    if (row?.state !== 'pending' || row.expiresAt.getTime() <= input.now.getTime())
      return { won: false, question: row };
    counted = row.approvals;
  }
  return { won: false, question: row };
}
