import { randomBytes } from 'node:crypto';
import type { SurfaceRegistry } from '../chat/surfaces.ts';
import type { Actor, MessageRef } from '../chat/types.ts';
import type { Logger } from '../log/index.ts';
import { approvalCard, parseApprovalActionId, settledCard } from './card.ts';
import type { ApprovalGrants } from './grants.ts';
import type { ApprovalBroker, ApprovalRequest, DecideOutcome, Decision, Gate, RoutedAction } from './port.ts';

/** Options for {@link MemoryApprovalBroker}. */
export interface MemoryApprovalBrokerOptions {
  surfaces: SurfaceRegistry;
  grants: ApprovalGrants;
  /** Why `actor` may not decide for `requester`, or undefined (AccessPolicy.approvalRefusal). */
  mayDecide: (actor: Actor, requester: Actor) => string | undefined;
  logger?: Logger;
  /** Settled gates kept for "already decided" answers; default 500. */
  keepSettled?: number;
}

interface HeldGate extends Gate {
  card?: MessageRef;
}

const PAST: Record<Decision, string> = { once: 'approved (once)', always: 'approved (always)', deny: 'denied' };

/**
 * Approval questions in memory, one card in the origin chat each; the first permitted decision wins.
 * Questions do not survive a restart: the runner then finds the graph still paused and a new message
 * supersedes it. The durable gate table replaces this class behind the same port.
 */
export class MemoryApprovalBroker implements ApprovalBroker {
  readonly #gates = new Map<string, HeldGate>();
  readonly #options: MemoryApprovalBrokerOptions;

  constructor(options: MemoryApprovalBrokerOptions) {
    this.#options = options;
  }

  async open(request: ApprovalRequest): Promise<Gate> {
    const gate: HeldGate = { ...request, gateId: randomBytes(9).toString('base64url'), state: 'pending' };
    this.#gates.set(gate.gateId, gate);
    try {
      gate.card = await this.#options.surfaces.sendCard(request.chat, approvalCard(gate));
    } catch (error) {
      // The question stays pending: /approvals (later) or a new message can still settle it.
      this.#options.logger?.error({ err: error, chat: request.chat, gate: gate.gateId }, 'could not send the approval card');
    }
    return { ...gate };
  }

  route(actionId: string): RoutedAction | undefined {
    const parsed = parseApprovalActionId(actionId);
    const gate = parsed && this.#gates.get(parsed.gateId);
    return parsed && gate ? { ...parsed, chat: gate.chat } : undefined;
  }

  async decide(input: { gateId: string; decision: Decision; actor: Actor; reason?: string }): Promise<DecideOutcome> {
    const gate = this.#gates.get(input.gateId);
    if (!gate) return { ok: false, message: 'This question is no longer open (Kazma may have restarted). Ask again.' };
    if (gate.state === 'decided') {
      return { ok: false, message: `This question was already ${PAST[gate.decision ?? 'deny']} by ${gate.decidedBy ?? 'someone'}.` };
    }
    if (gate.state === 'superseded') return { ok: false, message: 'This question was superseded by a newer message.' };
    const refusal = this.#options.mayDecide(input.actor, gate.requester);
    if (refusal) return { ok: false, message: `You cannot decide this: ${refusal}.` };
    // Check and set with no await in between: the event loop makes this the compare-and-set.
    gate.state = 'decided';
    gate.decision = input.decision;
    gate.decidedBy = input.actor.displayName ?? input.actor.id;
    if (input.decision === 'always') this.#options.grants.add({ chat: gate.chat, tool: gate.call.tool, args: gate.call.args });
    await this.#edit(gate);
    this.#prune();
    const resume = { decision: input.decision, by: gate.decidedBy, ...(input.reason !== undefined && { reason: input.reason }) };
    return { ok: true, gate: { ...gate }, resume };
  }

  async supersede(threadId: string, reason: string): Promise<Gate[]> {
    const superseded: Gate[] = [];
    for (const gate of this.#gates.values()) {
      if (gate.threadId !== threadId || gate.state !== 'pending') continue;
      gate.state = 'superseded';
      await this.#edit(gate, reason);
      superseded.push({ ...gate });
    }
    return superseded;
  }

  pending(filter: { chat?: string; threadId?: string } = {}): Gate[] {
    return [...this.#gates.values()]
      .filter((g) => g.state === 'pending')
      .filter((g) => (filter.chat === undefined || g.chat === filter.chat) && (filter.threadId === undefined || g.threadId === filter.threadId))
      .map((g) => ({ ...g }));
  }

  isGranted(call: { chat: string; tool: string; args: unknown }): boolean {
    return this.#options.grants.allows(call);
  }

  async #edit(gate: HeldGate, note?: string): Promise<void> {
    if (!gate.card) return;
    try {
      await this.#options.surfaces.editCard(gate.card, settledCard(gate, note));
    } catch (error) {
      this.#options.logger?.warn({ err: error, gate: gate.gateId }, 'could not edit the approval card');
    }
  }

  #prune(): void {
    const keep = this.#options.keepSettled ?? 500;
    const settled = [...this.#gates.values()].filter((g) => g.state !== 'pending');
    for (const gate of settled.slice(0, Math.max(0, settled.length - keep))) this.#gates.delete(gate.gateId);
  }
}
