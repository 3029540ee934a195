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
// message-like object) that has an id. Anything else goes to the stock reducer whole.
import { AIMessage, ChatMessage, FunctionMessage, HumanMessage, RemoveMessage, SystemMessage, ToolMessage, type BaseMessage } from '@langchain/core/messages';
import { v4 } from '@langchain/core/utils/uuid';
import { messagesStateReducer, REMOVE_ALL_MESSAGES, type Messages } from '@langchain/langgraph';

/** The classes the stock reducer turns chunks into, and leaves as they are. */
const PLAIN = new Set<object>([AIMessage, HumanMessage, SystemMessage, ToolMessage, FunctionMessage, ChatMessage].map((c) => c.prototype));

const isPlainWithId = (m: unknown): m is BaseMessage =>
  typeof m === 'object' && m !== null && PLAIN.has(Object.getPrototypeOf(m) as object) && (m as BaseMessage).id != null;

/** `right` as plain messages (ids given where missing, as the stock reducer does); undefined when it must do the coercing. */
function plainUpdate(right: Messages): BaseMessage[] | undefined {
  const update = Array.isArray(right) ? right : [right];
  for (const m of update) {
    const removal = typeof m === 'object' && m !== null && Object.getPrototypeOf(m) === RemoveMessage.prototype;
    if (removal && (m as RemoveMessage).id === REMOVE_ALL_MESSAGES) return undefined;
    if (!removal && !(typeof m === 'object' && m !== null && PLAIN.has(Object.getPrototypeOf(m) as object))) return undefined;
  }
  const plain = update as BaseMessage[];
  for (const m of plain) if (m.id === null || m.id === undefined) m._updateId(v4());
  return plain;
}

/** Merges `right` into `left` by id: replaces, removes (RemoveMessage) or appends, as `messagesStateReducer` does. */
function mergeById(left: readonly BaseMessage[], right: readonly BaseMessage[]): BaseMessage[] {
  const merged = [...left];
  const indexById = new Map<string, number>();
  for (let i = 0; i < merged.length; i++) indexById.set(merged[i]!.id!, i);
  const idsToRemove = new Set<string>();
  for (const message of right) {
    const id = message.id!;
    const existing = indexById.get(id);
    if (existing !== undefined) {
      if (RemoveMessage.isInstance(message)) idsToRemove.add(id);
      else {
        idsToRemove.delete(id);
        merged[existing] = message;
      }
    } else {
      if (RemoveMessage.isInstance(message)) throw new Error(`Attempting to delete a message with an ID that doesn't exist ('${id}')`);
      indexById.set(id, merged.length);
      merged.push(message);
    }
  }
  return idsToRemove.size === 0 ? merged : merged.filter((m) => !idsToRemove.has(m.id!));
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
    if (m instanceof RemoveMessage) removals++;
  }
  // One pass over the state: is it all plain, and what of it does the update touch?
  let removed = 0;
  let replaced = false;
  for (let i = 0; i < state.length; i++) {
    const m = state[i];
    if (!isPlainWithId(m)) return messagesStateReducer(left, right);
    const touching = updateById.get(m.id!);
    if (touching === undefined) continue;
    if (touching instanceof RemoveMessage) removed++;
    else replaced = true;
  }
  // The common updates: appends, and removals of messages that are there (the window moving on).
  if (!replaced && removed === removals && updateById.size === update.length) {
    const kept = removed === 0 ? state : state.filter((m) => !updateById.has(m.id!));
    return kept.concat(removals === 0 ? update : update.filter((m) => !(m instanceof RemoveMessage)));
  }
  return mergeById(state, update);
}
