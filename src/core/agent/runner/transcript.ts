// Reading the conversation for the runner: which replies are new, and which tool calls were left open.
import { randomUUID } from 'node:crypto';
import { AIMessage, ToolMessage, type BaseMessage } from '@langchain/core/messages';
import type { ToolCall } from '@langchain/core/messages/tool';
import { callIdOf } from '../graph/state.ts';

/** The text of a message, whether its content is a string or an array of parts. */
export function textOf(message: BaseMessage): string {
  const content = message.content;
  if (typeof content === 'string') return content;
  return content
    .map((part) =>
      typeof part === 'string' ? part : part.type === 'text' && typeof part.text === 'string' ? part.text : '',
    )
    .join('');
}

/**
 * The AI messages after position `from` that have something to say, each keyed by its message id (the
 * messages reducer gives every stored message one), so the same reply always maps to the same outbox row.
 */
export function newReplies(messages: BaseMessage[], from: number): Array<{ key: string; text: string }> {
  return messages
    .slice(from)
    .flatMap((m, i) =>
      AIMessage.isInstance(m) ? [{ key: m.id ?? `at-${from + i}-${randomUUID()}`, text: textOf(m).trim() }] : [],
    )
    .filter((reply) => reply.text !== '');
}

/**
 * Where a drive's new replies begin: after the message with id `after` (undefined: from the start).
 * An id, not a position: older turns leave the checkpoint while a turn runs (the context window), which
 * shifts every position, and only ever a prefix leaves — so a message that is gone was older than all
 * that is left, and everything left is new.
 */
export interface RepliesAnchor {
  after: string | undefined;
}

/** The anchor after the last of `messages` (what a drive starts from). */
export function anchorAtEnd(messages: readonly BaseMessage[]): RepliesAnchor {
  return { after: messages.at(-1)?.id };
}

/** The anchor just before the message that starts turn `turnId` (the whole thread when it is not found). */
export function anchorAtTurn(messages: readonly BaseMessage[], turnId: string): RepliesAnchor {
  const index = messages.findIndex((m) => m.id === turnMessageId(turnId));
  return { after: index > 0 ? messages[index - 1]!.id : undefined };
}

/** The position of the first message after `anchor` in `messages`. */
export function positionAfter(messages: readonly BaseMessage[], anchor: RepliesAnchor): number {
  return anchor.after === undefined ? 0 : messages.findIndex((m) => m.id === anchor.after) + 1;
}

/**
 * Kazma's own words in the conversation (a turn ended after crashes, a failure): shown to the chat like a
 * reply, but marked so the model is never sent them as if it had said them.
 */
export function noticeMessage(text: string, id: string): AIMessage {
  return new AIMessage({ content: text, id, response_metadata: { kazma_notice: true } });
}

/** True for a {@link noticeMessage}. */
export function isNotice(message: BaseMessage): boolean {
  return AIMessage.isInstance(message) && message.response_metadata?.kazma_notice === true;
}

/**
 * Tool calls of the last model message that have no ToolMessage yet. A thread left like this (a
 * question abandoned, a crash before the gate finished) must have them answered before the next
 * model request: providers reject a tool call without its result.
 */
export function unansweredCalls(messages: BaseMessage[]): Array<{ id: string; name: string }> {
  let index = messages.length - 1;
  while (index >= 0 && !AIMessage.isInstance(messages[index])) index--;
  if (index < 0) return [];
  const calls: ToolCall[] = (messages[index] as AIMessage).tool_calls ?? [];
  const answered = new Set(
    messages.slice(index + 1).flatMap((m) => (ToolMessage.isInstance(m) ? [m.tool_call_id] : [])),
  );
  return calls.map((call, i) => ({ id: callIdOf(call, i), name: call.name })).filter((c) => !answered.has(c.id));
}

/** ToolMessages closing `calls`, saying why they did not run. */
export function closeCalls(calls: Array<{ id: string; name: string }>, why: string): ToolMessage[] {
  return calls.map(
    (c) => new ToolMessage({ tool_call_id: c.id, name: c.name, content: `not run: ${why}`, status: 'error' }),
  );
}

/** The id of the message that starts a turn; finding it finds where the turn's replies begin. */
export function turnMessageId(turnId: string): string {
  return `turn-${turnId}`;
}

export function hasQuestion(tasks: ReadonlyArray<{ interrupts: readonly unknown[] }>): boolean {
  return tasks.some((task) => task.interrupts.length > 0);
}
