// Approval gates as one kind of first-decision-wins question: the gate table's compare-and-set
// (pending → claimed, with its audit row, in one statement), its card and the words a losing tap gets back.
import { sql } from 'drizzle-orm';
import type { Clock } from '../clock.ts';
import type { Actor } from '../surface/index.ts';
import { approvalGates, type Db } from '../db/index.ts';
import { type DecisionKind, storedActor } from '../decisions/index.ts';
import { gateCard, outcomeLine, tally } from './card.ts';
import * as store from './gate-store.ts';
import { gateFromRow } from './gate-view.ts';
import { policyRefusal } from './policy.ts';
import type { Decision, Gate } from './port.ts';
import { needsQuorum, settleByQuorum } from './quorum.ts';
import { transitionGate, type GateRow } from './transition.ts';

/** What the gate kind reads from its broker. */
export interface GateKindOptions {
  db: Db;
  /** Why `actor` may not decide for `requester`, or undefined when they may. */
  mayDecide: (actor: Actor, requester: Actor) => string | undefined;
  operatorName: (actor: Actor) => string | undefined;
  clock: Clock;
  secrets?: readonly string[];
}

/** Owner name of gate cards in the outbox. */
export const GATE_OWNER = 'gate';

export function gateKind(o: GateKindOptions): DecisionKind<GateRow, Decision, Gate> {
  const stored = (actor: Actor) => storedActor(actor, o.operatorName(actor));
  return {
    owner: GATE_OWNER,
    unknownMessage: 'This approval question is not known here.',
    load: async (id) => {
      const row = await store.getGate(o.db, id);
      return row && gateFromRow(row);
    },
    // Open while pending and not past its expiry: a gate the sweep has not yet moved to timeout (it runs
    // every runs.sweep_interval, and not at all while Redis is down) is closed all the same.
    isOpen: (gate) => gate.state === 'pending' && gate.expiresAt.getTime() > o.clock.now().getTime(),
    // The requester and the policy never change after the gate is opened, so a gate read to route the tap will do.
    refusal: (gate, actor) =>
      gate.policy
        ? policyRefusal(gate.policy, actor, gate.requester, o.operatorName)
        : o.mayDecide(actor, gate.requester),
    async settle(request, seen) {
      const decidedBy = stored(request.actor);
      // Part of the compare-and-set: a tap that reaches the row after its expiry loses, however late the sweep.
      const notExpired = sql`${approvalGates.expiresAt} > ${sql.param(o.clock.now(), approvalGates.expiresAt)}`;
      const patch = {
        decision: request.decision,
        denyReason: request.reason ?? null,
        decidedBy,
        decidedPlatform: request.actor.platform,
        claimedAt: o.clock.now(),
      };
      const operator = decidedBy.operator;
      const gate = seen ?? (await this.load(request.id));
      if (operator && gate && needsQuorum(gate, request.decision)) {
        const now = o.clock.now();
        return settleByQuorum(o.db, { request, seen: gate, operator, decidedBy, patch, notExpired, now });
      }
      const moved = await transitionGate(o.db, {
        id: request.id,
        from: 'pending',
        to: 'claimed',
        guard: notExpired,
        patch,
        audit: {
          actor: decidedBy,
          decision: request.decision,
          ...(request.reason && { detail: request.reason }),
          ...(request.eventKey && { eventKey: request.eventKey }),
        },
      });
      return { won: moved.ok, question: moved.gate };
    },
    countedMessage: (row) => {
      const gate = gateFromRow(row);
      const left = (gate.policy?.approvals ?? 1) - (gate.approvals?.length ?? 0);
      return `Your approval is counted: ${tally(gate)}. ${gate.call.tool} runs after ${left} more.`;
    },
    audit: (entry) =>
      store.audit(o.db, {
        gateId: entry.id,
        outcome: entry.outcome === 'unknown' ? 'unknown_gate' : entry.outcome,
        ...(entry.actor && { actor: stored(entry.actor) }),
        ...(entry.decision && { decision: entry.decision }),
        ...(entry.detail && { detail: entry.detail }),
        ...(entry.eventKey && { eventKey: entry.eventKey }),
      }),
    lostMessage(row, request) {
      const gate = gateFromRow(row);
      const line = outcomeLine(gate);
      const operator = o.operatorName(request.actor);
      if (row.state === 'pending' && operator && row.approvals.some((a) => a.operator === operator))
        return `You already approved this; you count once: ${tally(gate)}.`;
      const same =
        row.decidedBy?.platform === request.actor.platform &&
        row.decidedBy.id === request.actor.id &&
        row.decision === request.decision;
      if (same) return `You already decided this: ${line}.`;
      // Still pending, yet the compare-and-set refused it: past its expiry, not yet swept to timeout.
      if (row.state === 'pending')
        return `This question is closed: nobody decided within the approval timeout, so ${row.tool} will not run.`;
      const closed = row.state === 'timeout' || row.state === 'superseded' || (row.state === 'error' && !row.decision);
      return closed ? `This question is closed. ${line}.` : `Already decided: ${line}.`;
    },
    card: (row) => gateCard(gateFromRow(row), { now: o.clock.now(), ...(o.secrets && { secrets: o.secrets }) }),
  };
}
