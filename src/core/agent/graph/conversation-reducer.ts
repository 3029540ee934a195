// The `messages` channel's reducer: LangGraph's `messagesStateReducer`, without its per-message cost on
// the messages it would leave as they are. The stock reducer coerces every message of the state on every
// update (its chunk check walks each message's prototype chain) and re-indexes them all, so each step's
// cost grew with the conversation: at a full window of ~600 messages it was the largest part of what a
// long chat's turn costs more than a new chat's.
//
// Input: the channel's value (`left`) and one update (`right`).
// Output: exactly what `messagesStateReducer(left, right)` returns (a new array; neither input changed,
// but for the id the stock reducer also gives an update's message that has none).
// Invariant: the fast path only takes messages the stock reducer would pass through untouched: an
// instance of one of LangGraph's plain message classes itself (never a chunk, a subclass, a string or a
// message-like object) that has an id. Anything else, and any update that is not appends and removals of
// messages that are there, goes to the stock reducer whole.
import {
  AIMessage,
  ChatMessage,
  FunctionMessage,
  HumanMessage,
  RemoveMessage,
  SystemMessage,
  ToolMessage,
  type BaseMessage,
} from '@langchain/core/messages';
import { v4 } from '@langchain/core/utils/uuid';
import { messagesStateReducer, REMOVE_ALL_MESSAGES, type Messages } from '@langchain/langgraph';

/** The classes the stock reducer turns chunks into, and leaves as they are. */
const PLAIN = new Set<object>(
  [AIMessage, HumanMessage, SystemMessage, ToolMessage, FunctionMessage, ChatMessage].map((c) => c.prototype),
);

const prototypeOf = (m: unknown): object | null =>
  typeof m === 'object' && m !== null ? (Object.getPrototypeOf(m) as object) : null;
const isPlain = (m: unknown): m is BaseMessage => PLAIN.has(prototypeOf(m) as object);
const isRemoval = (m: unknown): m is RemoveMessage => prototypeOf(m) === RemoveMessage.prototype;

/**
 * `right` as plain messages and removals (ids given where missing, as the stock reducer does); undefined when it must
 * do the coercing.
 */
function plainUpdate(right: Messages): BaseMessage[] | undefined {
  const update = Array.isArray(right) ? right : [right];
  if (!update.every((m) => isPlain(m) || (isRemoval(m) && m.id !== REMOVE_ALL_MESSAGES))) return undefined;
  const plain = update as BaseMessage[];
  for (const m of plain) if (m.id === null || m.id === undefined) m._updateId(v4());
  return plain;
}

/** The reducer of the agent state's `messages`. */
export function conversationReducer(left: Messages, right: Messages): BaseMessage[] {
  const update = Array.isArray(left) ? plainUpdate(right) : undefined;
  if (!update) return messagesStateReducer(left, right);
  const state = left as BaseMessage[];
  const updateById = new Map<string, BaseMessage>();
  let removals = 0;
  for (const m of update) {
    updateById.set(m.id!, m);
    if (isRemoval(m)) removals++;
  }
  // One pass over the state: is it all plain, and what of it does the update touch?
  let removed = 0;
  let replaced = false;
  for (const m of state) {
    if (!isPlain(m) || m.id == null) return messagesStateReducer(left, right);
    const touching = updateById.get(m.id);
    if (touching === undefined) continue;
    if (isRemoval(touching)) removed++;
    else replaced = true;
  }
  // The common updates: appends, and removals of messages that are there (the window moving on).
  if (!replaced && removed === removals && updateById.size === update.length) {
    const kept = removed === 0 ? state : state.filter((m) => !updateById.has(m.id!));
    return kept.concat(removals === 0 ? update : update.filter((m) => !isRemoval(m)));
  }
  // Anything else (a replacement by id, an id twice, a removal of what is not there) is rare: the stock
  // reducer decides it, with its own errors.
  return messagesStateReducer(state, update);
}
