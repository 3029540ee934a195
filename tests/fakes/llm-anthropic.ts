// The fake LLM's answers in Anthropic's Messages API wire format (`POST /v1/messages`): one JSON body, or
// the server-sent events a `stream: true` request gets (message_start, a content block per text and per
// tool call with its deltas, message_delta, message_stop), as @langchain/anthropic's client reads them.
import type { Rendered } from './llm-wire.ts';
import { halves, words } from './llm-wire.ts';

const usage = (r: Rendered) => ({ input_tokens: r.usage.prompt_tokens, output_tokens: r.usage.completion_tokens });
const stopReason = (r: Rendered) => (r.toolCalls.length > 0 ? 'tool_use' : 'end_turn');
const toolId = (id: string | undefined, i: number) => id ?? `toolu_fake_${i}`;

/** The non-streaming `message` body. */
export function messageJson(r: Rendered): object {
  const content: object[] = r.toolCalls.map((c, i) => ({
    type: 'tool_use',
    id: toolId(c.id, i),
    name: c.name,
    input: JSON.parse(c.arguments),
  }));
  if (r.text) content.unshift({ type: 'text', text: r.text });
  return {
    id: `msg_${r.id}`,
    type: 'message',
    role: 'assistant',
    model: r.model,
    content,
    stop_reason: stopReason(r),
    stop_sequence: null,
    usage: usage(r),
  };
}

/** The events of a streamed message, each a whole `event:`/`data:` block. */
export function messageEvents(r: Rendered): string[] {
  const event = (data: { type: string; [key: string]: unknown }) =>
    `event: ${data.type}\ndata: ${JSON.stringify(data)}\n\n`;
  const out = [
    event({
      type: 'message_start',
      message: { ...messageJson(r), content: [], stop_reason: null, usage: { ...usage(r), output_tokens: 1 } },
    }),
  ];
  let index = 0;
  if (r.text) {
    out.push(event({ type: 'content_block_start', index, content_block: { type: 'text', text: '' } }));
    for (const piece of r.pacing.words ? words(r.text) : halves(r.text))
      out.push(event({ type: 'content_block_delta', index, delta: { type: 'text_delta', text: piece } }));
    out.push(event({ type: 'content_block_stop', index }));
    index++;
  }
  r.toolCalls.forEach((c, i) => {
    const block = { type: 'tool_use', id: toolId(c.id, i), name: c.name, input: {} };
    out.push(event({ type: 'content_block_start', index, content_block: block }));
    for (const piece of halves(c.arguments))
      out.push(event({ type: 'content_block_delta', index, delta: { type: 'input_json_delta', partial_json: piece } }));
    out.push(event({ type: 'content_block_stop', index }));
    index++;
  });
  out.push(
    event({
      type: 'message_delta',
      delta: { stop_reason: stopReason(r), stop_sequence: null },
      usage: { output_tokens: r.usage.completion_tokens },
    }),
  );
  out.push(event({ type: 'message_stop' }));
  return out;
}
