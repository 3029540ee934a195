// The approvals port: what the turn runner, the pipeline and the commands need from whoever keeps
// approval questions. The durable broker (gate table + outbox) implements it; the runner only ever
// resumes what the broker says was decided, and tells the broker when the resume began and ended.
import type { Actor, ChatRef, MessageRef } from '../surface/index.ts';
import type { Decision, GateApproval, GatePolicy, GateState } from '../db/index.ts';

export { DECISIONS, type Decision, type GateState } from '../db/index.ts';

/** The value the graph is resumed with, for exactly one interrupt. */
export interface ResumeDecision {
  decision: Decision;
  /** Who decided (operator name or display name), for the model and the card. */
  by?: string;
  /** Why: a deny reason is passed to the model. */
  reason?: string;
}

/** The payload of the graph's `interrupt()`: one tool call that needs a person. */
export interface ApprovalQuestion {
  kind: 'tool_approval';
  callId: string;
  tool: string;
  args: unknown;
  /** The tool's tier, `none` for a registered tool without one, `unknown` for a tool the registry lacks. */
  tier: string;
  reason: string;
  /**
   * The arguments as rewritten before the card (an alias's chat, a date anchored to memory), shown in its
   * reason: an approval runs exactly these, and refuses the call if it resolves otherwise by then.
   */
  rewritten?: Record<string, unknown>;
}

/** What the runner hands over when the graph paused on a question. */
export interface ApprovalRequest {
  threadId: string;
  /** The LangGraph interrupt id; a decision can resume only this interrupt. */
  interruptId: string;
  /** The chat the question came from; none for chatless (background) work, whose cards go to approvals.channels. */
  chat?: ChatRef;
  requester: Actor;
  call: ApprovalQuestion;
}

/**
 * At most `limit` gates, those after `after` (the last gate of the page before) in creation order, or
 * after skipping `offset` of them (a numbered page, as the web page shows them).
 */
export interface GatePage {
  limit: number;
  after?: { createdAt: Date; gateId: string };
  offset?: number;
}

/** One question as the broker keeps it, in its real state. */
export interface Gate extends ApprovalRequest {
  gateId: string;
  state: GateState;
  decision?: Decision;
  denyReason?: string;
  /** The operator name (or display name) of who decided. */
  decidedBy?: string;
  decidedPlatform?: string;
  decidedAt?: Date;
  createdAt: Date;
  /** Last change or heartbeat; a claimed/resuming gate untouched for long belongs to a dead process. */
  updatedAt: Date;
  expiresAt: Date;
  error?: string;
  /** The approval policy the question was asked under (approvals.policies); none: one approval decides. */
  policy?: GatePolicy;
  /** The approvals counted so far under a policy of more than one. */
  approvals?: GateApproval[];
  /** When the question also went to its policy's escalate_to (no quorum by escalate_after). */
  escalatedAt?: Date;
}

/** The outcome of a decision: the winner gets the value to resume with; everyone else gets why not. */
export type DecideOutcome =
  | { ok: true; gate: Gate; resume: ResumeDecision }
  | { ok: false; message: string; reason: 'refused' | 'decided' | 'unknown'; gate?: Gate }
  /** A Deny without the reason its policy requires (deny_reason: required): nothing was decided. */
  | { ok: false; message: string; reason: 'reason_required'; gate: Gate }
  /** One approval of several a policy asks was counted; the call has not run (yet). */
  | { ok: false; message: string; reason: 'counted'; gate: Gate }
  /** The same inbound event run again after its decision landed: nobody is told anything. */
  | { ok: false; message: ''; reason: 'replayed'; gate: Gate };

/** An "always" answer still in force. */
export interface Grant {
  id: string;
  chat: ChatRef;
  tool: string;
  grantedBy?: string;
  expiresAt: Date;
}

/**
 * Keeps approval questions and says who decided. The broker owns "was it already decided" (the first
 * decision wins; later ones get the real state back); the runner only resumes, and reports the resume's
 * start and end so a crash in between can be healed by the reconciler.
 */
export interface ApprovalBroker {
  /** Records a question and shows it (a card in the origin chat and every approvals channel). */
  open(request: ApprovalRequest): Promise<Gate>;
  /**
   * Shows a pending question's card again in `destination` (`/approvals`), as one more card of the
   * gate, so the edit to its final state reaches it like every other card. False when the question is
   * no longer pending (then nothing is posted).
   */
  repost(gateId: string, destination: ChatRef): Promise<boolean>;
  /**
   * Settles a pending question once; checks who may decide. `seen`: the gate as the caller just read it
   * (to route the tap), which spares the decision a read — it then costs one statement. `eventKey`: the
   * inbound event deciding (a tap, `/approve`), so the same event run again is not audited twice.
   * `tapped`: the card's message the tap came from (FirstDecisionWins' DecideOptions.tapped).
   */
  decide(input: {
    gateId: string;
    decision: Decision;
    actor: Actor;
    reason?: string;
    seen?: Gate;
    eventKey?: string;
    tapped?: MessageRef;
  }): Promise<DecideOutcome>;
  /** The winner is about to resume: claimed → resuming. False when someone else already resumed it. */
  beginResume(gateId: string): Promise<boolean>;
  /** Keeps a live resume's lease: other processes' sweeps leave the gate alone while it beats. */
  heartbeat(gateId: string, state: 'claimed' | 'resuming'): Promise<void>;
  /** Takes over a gate abandoned by a dead process (untouched since before `staleBefore`); true for one caller only. */
  takeOver(gate: Gate, staleBefore: Date): Promise<boolean>;
  /** The resume ran: resuming → settled. */
  settle(gateId: string): Promise<void>;
  /** The resume could not run (e.g. the graph no longer waits on it): claimed/resuming → error. */
  fail(gateId: string, error: string): Promise<void>;
  /** Abandons the thread's pending questions (a new message arrived); returns what it superseded. */
  supersede(threadId: string, reason: string): Promise<Gate[]>;
  /** Pending questions whose time is up move to timeout, exactly once each; returns them. */
  expire(now?: Date): Promise<Gate[]>;
  /**
   * Gates in the given states (default pending), optionally of one chat or thread, oldest first; `page`: one page of
   * them.
   */
  list(filter?: { states?: GateState[]; chat?: ChatRef; threadId?: string; page?: GatePage }): Promise<Gate[]>;
  /** How many gates are in the given states (default pending): the whole of what `list` pages through. */
  count(filter?: { states?: GateState[] }): Promise<number>;
  get(gateId: string): Promise<Gate | undefined>;
  /**
   * True when an earlier "always" covers this call in this chat, given by as many operators as the call's policy
   * asks now (a grant never widens: not to other arguments, nor to a policy that asks more).
   */
  isGranted(call: { chat: ChatRef; tool: string; args: unknown; tier?: string }): Promise<boolean>;
  grants(chat?: ChatRef): Promise<Grant[]>;
  /** Revokes a grant; false when there was none with that id. */
  revokeGrant(id: string): Promise<boolean>;
}
