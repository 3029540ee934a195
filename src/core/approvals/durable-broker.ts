import type { ChatRef, Actor } from '../surface/index.ts';
import { systemClock, type Clock } from '../clock.ts';
import type { Db, GateState } from '../db/index.ts';
import type { Logger } from '../log/index.ts';
import { type DecisionKind, type FirstDecisionWins, storedActor } from '../decisions/index.ts';
import { outboxOfOwner } from '../outbox/index.ts';
import type { Escalations } from './escalation.ts';
import { type ApprovalRecord, approvalRecords } from './export.ts';
import { GATE_OWNER, gateKind } from './gate-kind.ts';
import { findGrant, grantIfAlways, liveGrants } from './grants.ts';
import { type ApprovalPolicies, reasonQuestion } from './policy.ts';
import * as store from './gate-store.ts';
import { gateFromRow } from './gate-view.ts';
import type { ApprovalBroker, ApprovalRequest, DecideOutcome, Decision, Gate, GatePage, Grant } from './port.ts';
import { transitionGate, type GateRow } from './transition.ts';

/** Options for {@link DurableApprovalBroker}. */
export interface DurableBrokerOptions {
  db: Db;
  /** The shared first-decision-wins mechanism (and the outbox behind it). */
  decisions: FirstDecisionWins;
  /** Why `actor` may not decide for `requester`, or undefined when they may (AccessPolicy.approvalRefusal). */
  mayDecide: (actor: Actor, requester: Actor) => string | undefined;
  /** The operator name of an actor, for "approved by maya" whatever platform she tapped on. */
  operatorName: (actor: Actor) => string | undefined;
  /** approvals.policies and approvals.require: which policy a question is asked under. */
  policies?: ApprovalPolicies;
  /** Arms each new question's escalation timer (a policy's escalate_after); absent: none. */
  escalations?: Escalations;
  /** approvals.channels: every card also goes here. */
  channels: readonly ChatRef[];
  timeoutMs: number;
  grantTtlMs: number;
  secrets?: readonly string[];
  /** Where expiry, grant TTLs and settle times read now. Default {@link systemClock}. */
  clock?: Clock;
  logger?: Logger;
}

/**
 * Approval questions in the gate table: one card per destination through the outbox (written in the
 * same transaction as the gate), the first permitted decision wins by compare-and-set, and every
 * final state edits every card. Survives restarts and serves several processes on one database.
 */
export class DurableApprovalBroker implements ApprovalBroker {
  readonly #o: DurableBrokerOptions;
  readonly #clock: Clock;
  readonly #kind: DecisionKind<GateRow, Decision, Gate>;

  constructor(options: DurableBrokerOptions) {
    this.#o = options;
    this.#clock = options.clock ?? systemClock;
    this.#kind = gateKind({ ...options, clock: this.#clock });
  }

  async open(request: ApprovalRequest): Promise<Gate> {
    const destinations = [...new Set<ChatRef>([...(request.chat ? [request.chat] : []), ...this.#o.channels])];
    const expiresAt = new Date(this.#clock.now().getTime() + this.#o.timeoutMs);
    const { gate, ids } = await this.#o.db.transaction(async (tx) => {
      const row = await store.insertGate(tx, {
        id: store.newGateId(),
        interruptId: request.interruptId,
        threadId: request.threadId,
        callId: request.call.callId,
        originChat: request.chat,
        requester: storedActor(request.requester, this.#o.operatorName(request.requester)),
        tool: request.call.tool,
        args: request.call.args,
        ...(request.call.rewritten && { rewritten: request.call.rewritten }),
        tier: request.call.tier,
        reason: request.call.reason,
        policy: this.#o.policies?.for(request.call),
        expiresAt,
      });
      return { gate: gateFromRow(row), ids: await this.#o.decisions.post(tx, this.#kind, row.id, row, destinations) };
    });
    await this.#dispatch(ids);
    // A timer Redis did not take is escalated by the sweep (Escalations.overdue) all the same.
    await this.#o.escalations
      ?.schedule(gate)
      .catch((error: unknown) => this.#o.logger?.warn({ err: error, gate: gate.gateId }, 'escalation not armed'));
    return gate;
  }

  /** The escalation timers and the escalation itself, when approvals.policies escalate. */
  get escalations(): Escalations | undefined {
    return this.#o.escalations;
  }

  async repost(gateId: string, destination: ChatRef): Promise<boolean> {
    const ids = await this.#o.db.transaction(async (tx) => {
      // The gate row is held while its new card row is written: a decision (or expiry) changing the
      // state waits for this, so its edit pass finds the card; one that came first leaves the gate not
      // pending and no card is posted, so no card is ever left with live buttons on a closed question.
      const row = await store.lockGate(tx, gateId);
      if (row?.state !== 'pending') return [];
      return this.#o.decisions.post(tx, this.#kind, gateId, row, [destination]);
    });
    await this.#dispatch(ids);
    return ids.length > 0;
  }

  async decide(input: Parameters<ApprovalBroker['decide']>[0]): Promise<DecideOutcome> {
    const request = {
      id: input.gateId,
      decision: input.decision,
      actor: input.actor,
      ...(input.reason && { reason: input.reason }),
      ...(input.eventKey && { eventKey: input.eventKey }),
    };
    const seen = input.seen?.gateId === input.gateId ? input.seen : undefined;
    // A Deny its policy wants a reason for, given without one, decides nothing: the denier is asked why.
    const unexplained = input.decision === 'deny' && !input.reason?.trim() && (seen ?? (await this.get(input.gateId)));
    const ask = unexplained && reasonQuestion(unexplained, this.#kind, input.actor);
    if (ask) return { ok: false, reason: 'reason_required', message: ask, gate: unexplained };
    const outcome = await this.#o.decisions.decide(this.#kind, request, {
      ...(seen && { seen }),
      ...(input.tapped && { tapped: input.tapped }),
      afterWin: (row) => grantIfAlways(this.#o.db, row, new Date(this.#clock.now().getTime() + this.#o.grantTtlMs)),
    });
    if (outcome.ok) {
      const gate = gateFromRow(outcome.question);
      return {
        ok: true,
        gate,
        resume: {
          decision: input.decision,
          by: gate.decidedBy ?? input.actor.id,
          ...(input.reason && { reason: input.reason }),
        },
      };
    }
    if (outcome.reason === 'unknown') return { ok: false, reason: 'unknown', message: outcome.message };
    if (outcome.reason === 'refused')
      return { ok: false, reason: 'refused', message: outcome.message, gate: outcome.seen };
    if (outcome.reason === 'replayed')
      return { ok: false, reason: 'replayed', message: '', gate: gateFromRow(outcome.question) };
    return { ok: false, reason: outcome.reason, message: outcome.message, gate: gateFromRow(outcome.question) };
  }

  async beginResume(gateId: string): Promise<boolean> {
    return (await transitionGate(this.#o.db, { id: gateId, from: 'claimed', to: 'resuming' })).ok;
  }

  heartbeat(gateId: string, state: 'claimed' | 'resuming'): Promise<void> {
    return store.touchGate(this.#o.db, gateId, state);
  }

  takeOver(gate: Gate, staleBefore: Date): Promise<boolean> {
    const seen = { id: gate.gateId, state: gate.state, updatedAt: gate.updatedAt };
    return store.takeOverGate(this.#o.db, seen, staleBefore);
  }

  async settle(gateId: string): Promise<void> {
    const moved = await transitionGate(this.#o.db, {
      id: gateId,
      from: 'resuming',
      to: 'settled',
      patch: { settledAt: this.#clock.now() },
    });
    // decide() queues the edits right after its claim; a process that died in between left the cards
    // showing buttons, and the reconciler's resume ends here: edit them now (never twice).
    if (
      moved.ok &&
      !(await outboxOfOwner(this.#o.db, { kind: GATE_OWNER, id: gateId })).some((row) => row.kind === 'edit')
    )
      await this.#editCards(moved.gate);
  }

  async fail(gateId: string, error: string): Promise<void> {
    for (const from of ['resuming', 'claimed'] as const) {
      const moved = await transitionGate(this.#o.db, {
        id: gateId,
        from,
        to: 'error',
        patch: { error, settledAt: this.#clock.now() },
      });
      if (moved.ok) return this.#editCards(moved.gate);
    }
  }

  async supersede(threadId: string, reason: string): Promise<Gate[]> {
    return this.#finish(await store.gatesInState(this.#o.db, ['pending'], { threadId }), 'superseded', reason);
  }

  async expire(now = this.#clock.now()): Promise<Gate[]> {
    return this.#finish(await store.expiredGates(this.#o.db, now), 'timeout', 'nobody decided in time');
  }

  async list(
    filter: { states?: GateState[]; chat?: ChatRef; threadId?: string; page?: GatePage } = {},
  ): Promise<Gate[]> {
    const rows = await store.gatesInState(this.#o.db, filter.states ?? ['pending'], {
      ...(filter.chat && { chat: filter.chat }),
      ...(filter.threadId && { threadId: filter.threadId }),
      ...(filter.page && { page: filter.page }),
    });
    return rows.map(gateFromRow);
  }

  count(filter: { states?: GateState[] } = {}): Promise<number> {
    return store.countGates(this.#o.db, filter.states ?? ['pending']);
  }

  async get(gateId: string): Promise<Gate | undefined> {
    const row = await store.getGate(this.#o.db, gateId);
    return row && gateFromRow(row);
  }

  async isGranted(call: { chat: ChatRef; tool: string; args: unknown; tier?: string }): Promise<boolean> {
    const required = this.#o.policies?.required({ ...call, tier: call.tier ?? 'unknown' }) ?? 1;
    return (await findGrant(this.#o.db, { ...call, approvals: required }, this.#clock.now())) !== undefined;
  }

  grants(chat?: ChatRef): Promise<Grant[]> {
    return liveGrants(this.#o.db, chat, this.#clock.now());
  }

  /** Every step of the questions asked (approvalRecords), for `/approvals history` and the export. */
  history(filter: Parameters<typeof approvalRecords>[1]): Promise<ApprovalRecord[]> {
    return approvalRecords(this.#o.db, filter);
  }

  revokeGrant(id: string): Promise<boolean> {
    return store.revokeGrant(this.#o.db, id);
  }

  /** Moves pending gates to a final state, each exactly once (a lost CAS means someone decided first). */
  async #finish(rows: GateRow[], to: 'superseded' | 'timeout', detail: string): Promise<Gate[]> {
    const done: Gate[] = [];
    for (const row of rows) {
      const patch = { settledAt: this.#clock.now() };
      const moved = await transitionGate(this.#o.db, { id: row.id, from: 'pending', to, patch });
      if (!moved.ok) continue;
      await store.audit(this.#o.db, { gateId: row.id, outcome: to === 'timeout' ? 'expired' : 'superseded', detail });
      await this.#editCards(moved.gate);
      done.push(gateFromRow(moved.gate));
    }
    return done;
  }

  #editCards(row: GateRow): Promise<void> {
    return this.#o.decisions.editCards(this.#kind, row.id, row);
  }

  #dispatch(ids: string[]): Promise<void> {
    return this.#o.decisions.dispatch(ids);
  }
}
