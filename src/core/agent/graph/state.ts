// The graph's state: the conversation (LangGraph's messages channel, with a reducer that does not
// re-coerce the whole conversation on every update) plus four small fields the nodes share.
import { type AIMessage, type BaseMessage, AIMessage as AIMessageClass } from '@langchain/core/messages';
import type { ToolCall } from '@langchain/core/messages/tool';
import { Annotation, type Messages } from '@langchain/langgraph';
import type { ChatRef, Actor } from '../../surface/index.ts';
import { conversationReducer } from './conversation-reducer.ts';

/**
 * What happens to one tool call of the current model message, decided by the `gate` node:
 * run it, or tell the model it was refused (precheck), invalid (arguments) or denied (a person).
 */
export type Verdict =
  | {
      action: 'run';
      via: 'tier' | 'grant' | 'approval';
      by?: string;
      /** An approval's: the rewrite its card showed (null: none); the run refuses arguments resolved otherwise. */
      approved?: { rewritten: Record<string, unknown> | null };
    }
  | { action: 'refuse'; reason: string }
  | { action: 'invalid'; error: string }
  | { action: 'deny'; by?: string; reason?: string };

/** Who started the turn and where; set by the runner with each new message, kept in the checkpoint. */
export interface TurnInfo {
  id: string;
  chat: ChatRef;
  requester: Actor;
}

/** Which model produced the latest model message, for the "(answered by fallback …)" note. */
export interface AnsweredBy {
  model: string;
  fallback: boolean;
}

/** What memory recalled for a turn (null: nothing cleared the floor), asked once per turn. */
export interface RecalledForTurn {
  turnId: string;
  text: string | null;
}

const lastValue = <T>(initial: () => T) => Annotation<T>({ reducer: (_previous, next) => next, default: initial });

/**
 * The agent state. `verdicts` is replaced wholesale (the model node resets it with every new model
 * message), so call ids a model reuses across turns never inherit an old decision.
 */
export const AgentState = Annotation.Root({
  messages: Annotation<BaseMessage[], Messages>({ reducer: conversationReducer, default: () => [] }),
  verdicts: lastValue<Record<string, Verdict>>(() => ({})),
  turn: lastValue<TurnInfo | null>(() => null),
  answeredBy: lastValue<AnsweredBy | null>(() => null),
  recalled: lastValue<RecalledForTurn | null>(() => null),
});

export type AgentStateValue = typeof AgentState.State;
export type AgentStateUpdate = typeof AgentState.Update;

/** The turn as a tool sees it (`ToolContext.turn`): who asked, where, on which thread; none without a turn. */
export function toolTurn(state: AgentStateValue, config: { configurable?: Record<string, unknown> }) {
  if (!state.turn) return {};
  const threadId = String(config.configurable?.thread_id ?? '');
  return { turn: { chat: state.turn.chat, requester: state.turn.requester, threadId } };
}

/** The last AI message and its position, when it asked for tools. */
export function pendingToolMessage(messages: BaseMessage[]): { message: AIMessage; index: number } | undefined {
  const index = messages.length - 1;
  const last = messages[index];
  if (!last || !AIMessageClass.isInstance(last) || !last.tool_calls?.length) return undefined;
  return { message: last, index };
}

/** A tool call's id; providers that omit one get a stable stand-in from its position. */
export function callIdOf(call: ToolCall, position: number): string {
  return call.id && call.id !== '' ? call.id : `call_${position}`;
}

/**
 * The effect journal's call id: the model's call id prefixed with its AI message's id. Some
 * OpenAI-compatible servers restart their id counter, and a reused id must not replay an old receipt.
 * The message's id (Kazma's own, `ai-<uuid>`) names that message for good, also once older messages
 * left the checkpoint for the archive and every position shifted: a re-run of the same step finds its
 * receipt, and a later message never meets an earlier one's. A message stored without an id (none is
 * today) falls back to its position.
 */
export function journalCallId(
  pending: { message: { id?: string | undefined }; index: number },
  callId: string,
): string {
  return `${pending.message.id ?? `#${pending.index}`}:${callId}`;
}
