// Tool-call ids are chosen by the model, and a model can be steered by text it read. Every per-call
// decision (verdicts, effect receipts, tool results) is keyed by a call's id, so the ids must be Kazma's.
import { randomBytes } from 'node:crypto';
import { AIMessage } from '@langchain/core/messages';
import type { ToolCall } from '@langchain/core/messages/tool';

/**
 * The same model message with every tool call renamed to an id of Kazma's own: a random prefix per
 * message plus the call's position (`kz3f9a0c1b2d4e_0`, `…_1`). Shared, empty, missing or reused ids
 * from the model can then never make two calls share a decision. The provider's own copies of the ids
 * are dropped so the next request carries only ours: `additional_kwargs.tool_calls` (OpenAI's raw form)
 * and `tool_use` content blocks (Anthropic's), which the provider clients rebuild from `tool_calls`.
 *
 * @example
 * const reply = withOwnCallIds(modelReply); // reply.tool_calls[i].id === `${prefix}_${i}`
 */
export function withOwnCallIds(message: AIMessage): AIMessage {
  const calls = message.tool_calls ?? [];
  if (calls.length === 0) return message;
  const prefix = `kz${randomBytes(6).toString('hex')}`;
  const { tool_calls: _providerCalls, ...additional } = message.additional_kwargs;
  const content = Array.isArray(message.content)
    ? message.content.filter(
        (part) => !(typeof part === 'object' && part !== null && 'type' in part && part.type === 'tool_use'),
      )
    : message.content;
  return new AIMessage({
    content,
    tool_calls: calls.map((call, position): ToolCall => ({ ...call, id: `${prefix}_${position}` })),
    invalid_tool_calls: message.invalid_tool_calls ?? [],
    additional_kwargs: additional,
    response_metadata: message.response_metadata,
    ...(message.id !== undefined && { id: message.id }),
    ...(message.name !== undefined && { name: message.name }),
    ...(message.usage_metadata !== undefined && { usage_metadata: message.usage_metadata }),
  });
}

/**
 * True when every call of the message has its own non-empty id. Messages written by Kazma always do
 * ({@link withOwnCallIds}); a thread checkpointed before that rule may not, and then none of its calls
 * may run, because a decision recorded for one id would also answer the other call.
 */
export function hasDistinctCallIds(calls: readonly ToolCall[]): boolean {
  const ids = calls.map((call) => call.id ?? '');
  return !ids.includes('') && new Set(ids).size === ids.length;
}
