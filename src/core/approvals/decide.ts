import type { ChatQueues } from '../chat/index.ts';
import type { ChatRef, Actor, MessageRef } from '../surface/index.ts';
import { runQueue } from '../runs/index.ts';
import type { FirstDecisionWins } from '../decisions/index.ts';
import type { Meter } from '../metrics/index.ts';
import type { ApprovalBroker, DecideOutcome, Decision, Gate, ResumeDecision } from './port.ts';

/** What a decision needs from the turn runner: resume exactly the gate's interrupt, once. */
export interface GateResumer {
  resumeClaimed(gate: Gate, resume: ResumeDecision): Promise<unknown>;
}

/** Options for {@link ApprovalDecider}. */
export interface ApprovalDeciderOptions {
  broker: ApprovalBroker;
  runner: GateResumer;
  queues: ChatQueues;
  /** Answers losers and refused deciders privately. */
  decisions: Pick<FirstDecisionWins, 'tell'>;
  /** Counts each winning decision by its outcome; absent: not counted. */
  meter?: Pick<Meter, 'approvalDecided' | 'tracing'>;
}

/** One decision: a tap, `/approve`, or the HTTP API (which has no chat in front: `via` absent). */
export interface DecisionInput {
  gateId: string;
  decision: Decision;
  actor: Actor;
  /** The chat the decider is in; refusals and "already decided" answers go there, privately. */
  via?: ChatRef;
  reason?: string;
  /** The gate as the caller just read it (to find its chat's queue): the decision need not read it again. */
  seen?: Gate;
  /**
   * The inbound event deciding (a tap's or `/approve`'s turn id): taken up again after a stop, it is the same
   * attempt and adds no audit row. The HTTP API has none: each call is an attempt.
   */
  eventKey?: string;
  /**
   * The card's message the tap came from, when the platform says. It proves that card delivered: a card
   * whose send's answer was lost is recorded as that message, and a copy no row names (sent twice) or one
   * whose decision edit was lost to a crash is edited to show how the gate was settled
   * (FirstDecisionWins' DecideOptions.tapped): no card stays live for good.
   */
  tapped?: MessageRef;
}

/**
 * Settles a gate from any surface. The decision runs in the queue of the chat the question came from,
 * in order with that chat's turns; the broker's compare-and-set picks one winner; only the winner
 * resumes the graph (addressed to the gate's interrupt). Everyone else is answered with the gate's real
 * state — privately in the chat they decided from, or only in the returned outcome (the HTTP API).
 */
export class ApprovalDecider {
  readonly #o: ApprovalDeciderOptions;

  constructor(options: ApprovalDeciderOptions) {
    this.#o = options;
  }

  /** Decides, queued behind the gate's chat; an unknown gate is answered (and audited) at once. */
  async decide(input: DecisionInput): Promise<DecideOutcome> {
    const gate = await this.#o.broker.get(input.gateId);
    if (!gate) return this.#o.broker.decide(input);
    return this.#o.queues.run(runQueue(gate), () => this.decideNow({ ...input, seen: gate }));
  }

  /** Decides right here (the caller already holds the gate's chat queue). */
  async decideNow(input: DecisionInput): Promise<DecideOutcome> {
    const outcome = await this.#o.broker.decide(input);
    if (!outcome.ok) {
      const ask = outcome.reason === 'reason_required' && { askReason: { gateId: input.gateId } };
      if (input.via && outcome.reason !== 'replayed')
        await this.#o.decisions.tell(input.via, input.actor, outcome.message, ask || undefined);
      return outcome;
    }
    // Here and only here: the compare-and-set picked this decision, so it counts once however many tapped.
    const { createdAt, decidedAt = createdAt } = outcome.gate;
    this.#o.meter?.approvalDecided(outcome.resume.decision, (decidedAt.getTime() - createdAt.getTime()) / 1000);
    const wait = { tool: outcome.gate.call.tool, outcome: outcome.resume.decision, openedAt: createdAt, decidedAt };
    this.#o.meter?.tracing.approvalWait(wait);
    await this.#o.runner.resumeClaimed(outcome.gate, outcome.resume);
    return outcome;
  }
}
