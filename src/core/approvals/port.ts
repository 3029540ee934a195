// The approvals port: what the turn runner and the pipeline need from "whoever keeps approval
// questions". The in-memory broker implements it now; a durable gate table + outbox replaces it
// later without touching the runner, which only ever resumes what the broker says was decided.
import type { Actor } from '../chat/types.ts';
import type { ChatRef } from '../chat/ref.ts';

/** The three answers a person can give. */
export const DECISIONS = ['once', 'always', 'deny'] as const;
export type Decision = (typeof DECISIONS)[number];

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
}

/** What the runner hands over when the graph paused on a question. */
export interface ApprovalRequest {
  threadId: string;
  /** The LangGraph interrupt id; a decision can resume only this interrupt. */
  interruptId: string;
  chat: ChatRef;
  requester: Actor;
  call: ApprovalQuestion;
}

export type GateState = 'pending' | 'decided' | 'superseded';

/** One question as the broker keeps it. */
export interface Gate extends ApprovalRequest {
  gateId: string;
  state: GateState;
  decision?: Decision;
  decidedBy?: string;
}

/** The outcome of a decision: the winner gets the value to resume with; everyone else gets why not. */
export type DecideOutcome = { ok: true; gate: Gate; resume: ResumeDecision } | { ok: false; message: string };

/** What a tapped button asks for, and in which chat's queue the decision must run. */
export interface RoutedAction {
  gateId: string;
  decision: Decision;
  chat: ChatRef;
}

/**
 * Keeps approval questions and says who decided. The broker owns "was it already decided"
 * (the first decision wins; later ones get the real state back); the runner only resumes.
 */
export interface ApprovalBroker {
  /** Records a question and shows it (a card in the origin chat). */
  open(request: ApprovalRequest): Promise<Gate>;
  /** Reads a button id; undefined when it is not an approval button or the question is unknown. */
  route(actionId: string): RoutedAction | undefined;
  /** Settles a pending question once; checks who may decide. */
  decide(input: { gateId: string; decision: Decision; actor: Actor; reason?: string }): Promise<DecideOutcome>;
  /** Abandons the thread's pending questions (a new message arrived); returns what it superseded. */
  supersede(threadId: string, reason: string): Promise<Gate[]>;
  /** Pending questions, optionally of one chat or thread. */
  pending(filter?: { chat?: ChatRef; threadId?: string }): Gate[];
  /** True when an earlier "always" covers this call in this chat. */
  isGranted(call: { chat: ChatRef; tool: string; args: unknown }): boolean;
}
