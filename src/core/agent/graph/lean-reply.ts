// What the checkpoint keeps of a model's reply. Every turn's checkpoint holds the whole context window,
// so every byte of a stored message is written, read and revived again on each later turn of the thread.
// A ChatOpenAI reply carries ~700 bytes besides its words — token counts twice over (usage_metadata and
// response_metadata), provider fields, and `undefined` placeholders the serializer spells out — which
// nothing reads back: the next request is built from the content and the tool calls.
import { AIMessage } from '@langchain/core/messages';

/** The parts of a reply's response_metadata worth keeping (which model answered, and why it stopped). */
const KEPT_METADATA = ['model_name', 'finish_reason'] as const;

/**
 * The reply as the thread keeps it: content, id, name, tool calls (valid and invalid), the provider's
 * additional fields that have a value, and the model's name and finish reason. Token usage is dropped.
 */
export function leanReply(message: AIMessage): AIMessage {
  const additional = Object.fromEntries(
    Object.entries(message.additional_kwargs).filter(([, value]) => value !== undefined),
  );
  const metadata = Object.fromEntries(
    KEPT_METADATA.filter((key) => message.response_metadata?.[key] !== undefined).map((key) => [
      key,
      message.response_metadata[key],
    ]),
  );
  return new AIMessage({
    content: message.content,
    additional_kwargs: additional,
    response_metadata: metadata,
    tool_calls: message.tool_calls ?? [],
    invalid_tool_calls: message.invalid_tool_calls ?? [],
    ...(message.id !== undefined && { id: message.id }),
    ...(message.name !== undefined && { name: message.name }),
  });
}
