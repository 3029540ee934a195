import type { ChatRef } from '../chat/ref.ts';
import type { Actor } from '../chat/types.ts';
import type { Db } from '../db/index.ts';
import type { GateState } from '../db/schema/approvals.ts';
import type { Logger } from '../log/index.ts';
import { enqueueOutbox, outboxOfGate, type OutboxDispatcher } from '../outbox/index.ts';
import { gateCard, outcomeLine, parseApprovalActionId } from './card.ts';
import * as store from './gate-store.ts';
import { gateFromRow, storedActor } from './gate-view.ts';
import type { ApprovalBroker, ApprovalRequest, DecideOutcome, Decision, Gate, Grant, RoutedAction } from './port.ts';
import { transitionGate, type GateRow } from './transition.ts';

/** Options for {@link DurableApprovalBroker}. */
export interface DurableBrokerOptions {
  db: Db;
  outbox: OutboxDispatcher;
  /** Why `actor` may not decide for `requester`, or undefined when they may (AccessPolicy.approvalRefusal). */
  mayDecide: (actor: Actor, requester: Actor) => string | undefined;
  /** The operator name of an actor, for "approved by maya" whatever platform she tapped on. */
  operatorName: (actor: Actor) => string | undefined;
  /** approvals.channels: every card also goes here. */
  channels: readonly ChatRef[];
  timeoutMs: number;
  grantTtlMs: number;
  secrets?: readonly string[];
  now?: () => Date;
  logger?: Logger;
}

/**
 * Approval questions in the gate table: one card per destination through the outbox (written in the
 * same transaction as the gate), the first permitted decision wins by compare-and-set, and every
 * final state edits every card. Survives restarts and serves several processes on one database.
 */
export class DurableApprovalBroker implements ApprovalBroker {
  readonly #o: DurableBrokerOptions;
  readonly #now: () => Date;

  constructor(options: DurableBrokerOptions) {
    this.#o = options;
    this.#now = options.now ?? (() => new Date());
  }

  async open(request: ApprovalRequest): Promise<Gate> {
    const destinations = [...new Set<ChatRef>([request.chat, ...this.#o.channels])];
    const expiresAt = new Date(this.#now().getTime() + this.#o.timeoutMs);
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
        tier: request.call.tier,
        reason: request.call.reason,
        expiresAt,
      });
      const gate = gateFromRow(row);
      const card = gateCard(gate, this.#cardOptions());
      const ids = await enqueueOutbox(tx, destinations.map((destination) => ({ kind: 'card' as const, destination, payload: card, gateId: gate.gateId })));
      return { gate, ids };
    });
    await this.#dispatch(ids);
    return gate;
  }

  async repost(gateId: string, destination: ChatRef): Promise<boolean> {
    const ids = await this.#o.db.transaction(async (tx) => {
      // The gate row is held while its new card row is written: a decision (or expiry) changing the
      // state waits for this, so its edit pass finds the card; one that came first leaves the gate not
      // pending and no card is posted, so no card is ever left with live buttons on a closed question.
      const row = await store.lockGate(tx, gateId);
      if (row?.state !== 'pending') return [];
      const card = gateCard(gateFromRow(row), this.#cardOptions());
      return enqueueOutbox(tx, [{ kind: 'card', destination, payload: card, gateId }]);
    });
    await this.#dispatch(ids);
    return ids.length > 0;
  }

  async route(actionId: string): Promise<RoutedAction | undefined> {
    const parsed = parseApprovalActionId(actionId);
    const row = parsed && (await store.getGate(this.#o.db, parsed.gateId));
    return parsed && row ? { ...parsed, chat: gateFromRow(row).chat } : undefined;
  }

  async decide(input: { gateId: string; decision: Decision; actor: Actor; reason?: string }): Promise<DecideOutcome> {
    const { db } = this.#o;
    const operator = this.#o.operatorName(input.actor);
    const actor = storedActor(input.actor, operator);
    const row = await store.getGate(db, input.gateId);
    if (!row) {
      await store.audit(db, { gateId: input.gateId, actor, decision: input.decision, outcome: 'unknown_gate' });
      return { ok: false, reason: 'unknown', message: 'This approval question is not known here.' };
    }
    if (row.state !== 'pending') return this.#lost(row, input.decision, actor);
    const refusal = this.#o.mayDecide(input.actor, gateFromRow(row).requester);
    if (refusal) {
      await store.audit(db, { gateId: row.id, actor, decision: input.decision, outcome: 'refused', detail: refusal });
      return { ok: false, reason: 'refused', message: `You cannot decide this: ${refusal}.`, gate: gateFromRow(row) };
    }
    const won = await transitionGate(db, {
      id: row.id,
      from: 'pending',
      to: 'claimed',
      patch: { decision: input.decision, denyReason: input.reason ?? null, decidedBy: actor, decidedPlatform: input.actor.platform, claimedAt: this.#now() },
    });
    if (!won.ok) return this.#lost(won.gate ?? row, input.decision, actor);
    await store.audit(db, { gateId: row.id, actor, decision: input.decision, outcome: 'won', ...(input.reason && { detail: input.reason }) });
    const gate = gateFromRow(won.gate);
    if (input.decision === 'always') {
      await store.addGrant(db, { chat: gate.chat, tool: gate.call.tool, args: gate.call.args, grantedBy: actor, gateId: gate.gateId, expiresAt: new Date(this.#now().getTime() + this.#o.grantTtlMs) });
    }
    await this.#editCards(won.gate);
    const by = gate.decidedBy ?? input.actor.id;
    return { ok: true, gate, resume: { decision: input.decision, by, ...(input.reason && { reason: input.reason }) } };
  }

  async beginResume(gateId: string): Promise<boolean> {
    return (await transitionGate(this.#o.db, { id: gateId, from: 'claimed', to: 'resuming' })).ok;
  }

  heartbeat(gateId: string, state: 'claimed' | 'resuming'): Promise<void> {
    return store.touchGate(this.#o.db, gateId, state);
  }

  takeOver(gate: Gate, staleBefore: Date): Promise<boolean> {
    return store.takeOverGate(this.#o.db, { id: gate.gateId, state: gate.state, updatedAt: gate.updatedAt }, staleBefore);
  }

  async settle(gateId: string): Promise<void> {
    const moved = await transitionGate(this.#o.db, { id: gateId, from: 'resuming', to: 'settled', patch: { settledAt: this.#now() } });
    // decide() queues the edits right after its claim; a process that died in between left the cards
    // showing buttons, and the reconciler's resume ends here: edit them now (never twice).
    if (moved.ok && !(await outboxOfGate(this.#o.db, gateId)).some((row) => row.kind === 'edit')) await this.#editCards(moved.gate);
  }

  async fail(gateId: string, error: string): Promise<void> {
    for (const from of ['resuming', 'claimed'] as const) {
      const moved = await transitionGate(this.#o.db, { id: gateId, from, to: 'error', patch: { error, settledAt: this.#now() } });
      if (moved.ok) return this.#editCards(moved.gate);
    }
  }

  async supersede(threadId: string, reason: string): Promise<Gate[]> {
    return this.#finish(await store.gatesInState(this.#o.db, ['pending'], { threadId }), 'superseded', reason);
  }

  async expire(now = this.#now()): Promise<Gate[]> {
    return this.#finish(await store.expiredGates(this.#o.db, now), 'timeout', 'nobody decided in time');
  }

  async list(filter: { states?: GateState[]; chat?: ChatRef; threadId?: string } = {}): Promise<Gate[]> {
    const rows = await store.gatesInState(this.#o.db, filter.states ?? ['pending'], { ...(filter.chat && { chat: filter.chat }), ...(filter.threadId && { threadId: filter.threadId }) });
    return rows.map(gateFromRow);
  }

  async get(gateId: string): Promise<Gate | undefined> {
    const row = await store.getGate(this.#o.db, gateId);
    return row && gateFromRow(row);
  }

  async isGranted(call: { chat: ChatRef; tool: string; args: unknown }): Promise<boolean> {
    return (await store.findGrant(this.#o.db, call, this.#now())) !== undefined;
  }

  async grants(chat?: ChatRef): Promise<Grant[]> {
    const rows = await store.liveGrants(this.#o.db, chat, this.#now());
    return rows.map((r) => ({ id: r.id, chat: r.chat as ChatRef, tool: r.tool, expiresAt: r.expiresAt, ...(r.grantedBy && { grantedBy: r.grantedBy.operator ?? r.grantedBy.id }) }));
  }

  revokeGrant(id: string): Promise<boolean> {
    return store.revokeGrant(this.#o.db, id);
  }

  /** Moves pending gates to a final state, each exactly once (a lost CAS means someone decided first). */
  async #finish(rows: GateRow[], to: 'superseded' | 'timeout', detail: string): Promise<Gate[]> {
    const done: Gate[] = [];
    for (const row of rows) {
      const moved = await transitionGate(this.#o.db, { id: row.id, from: 'pending', to, patch: { settledAt: this.#now() } });
      if (!moved.ok) continue;
      await store.audit(this.#o.db, { gateId: row.id, outcome: to === 'timeout' ? 'expired' : 'superseded', detail });
      await this.#editCards(moved.gate);
      done.push(gateFromRow(moved.gate));
    }
    return done;
  }

  async #lost(row: GateRow, decision: Decision, actor: ReturnType<typeof storedActor>): Promise<DecideOutcome> {
    const gate = gateFromRow(row);
    const same = row.decidedBy?.platform === actor.platform && row.decidedBy.id === actor.id && row.decision === decision;
    await store.audit(this.#o.db, { gateId: row.id, actor, decision, outcome: 'lost', detail: row.state });
    const line = outcomeLine(gate);
    const closed = row.state === 'timeout' || row.state === 'superseded' || (row.state === 'error' && !row.decision);
    const message = same ? `You already decided this: ${line}.` : closed ? `This question is closed. ${line}.` : `Already decided: ${line}.`;
    return { ok: false, reason: 'decided', message, gate };
  }

  /** Queues an edit of every card of the gate to its current state (through the outbox, like the cards). */
  async #editCards(row: GateRow): Promise<void> {
    const card = gateCard(gateFromRow(row), this.#cardOptions());
    const cards = (await outboxOfGate(this.#o.db, row.id)).filter((r) => r.kind === 'card');
    const ids = await enqueueOutbox(this.#o.db, cards.map((c) => ({ kind: 'edit' as const, destination: c.destination, targetId: c.id, gateId: row.id, payload: card })));
    await this.#dispatch(ids);
  }

  async #dispatch(ids: string[]): Promise<void> {
    // The rows are durable; a failed dispatch is retried by the reconciler sweep and at start.
    await this.#o.outbox.dispatch(ids).catch((error: unknown) => this.#o.logger?.warn({ err: error, ids }, 'outbox dispatch failed; the sweep will retry'));
  }

  #cardOptions() {
    return { now: this.#now(), ...(this.#o.secrets && { secrets: this.#o.secrets }) };
  }
}
