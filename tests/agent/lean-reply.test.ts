// What the thread keeps of a model's reply: the words, the ids and the tool calls, which the next request
// is built from — not the token counts and provider fields that every later checkpoint would carry again.
import { AIMessage } from '@langchain/core/messages';
import { expect, it } from 'vitest';
import { leanReply } from '../../src/core/agent/graph/lean-reply.ts';

// As ChatOpenAI returns a reply (fields as @langchain/openai 1.5 sets them).
const reply = () =>
  new AIMessage({
    id: 'ai-1',
    name: undefined as unknown as string,
    content: 'مرحبا 👋 — calling the tool',
    additional_kwargs: { function_call: undefined, tool_calls: undefined, refusal: 'none' },
    response_metadata: {
      tokenUsage: { promptTokens: 88, completionTokens: 11, totalTokens: 99 },
      finish_reason: 'tool_calls',
      model_provider: 'openai',
      model_name: 'gpt-x',
      usage: { prompt_tokens: 88, completion_tokens: 11, total_tokens: 99 },
    },
    tool_calls: [{ id: 'kz1_0', name: 'shell', args: { command: 'ls' }, type: 'tool_call' }],
    invalid_tool_calls: [{ id: 'kz1_1', name: 'write', args: '{oops', error: 'bad json', type: 'invalid_tool_call' }],
    usage_metadata: {
      input_tokens: 88,
      output_tokens: 11,
      total_tokens: 99,
      input_token_details: { audio: undefined },
      output_token_details: { reasoning: undefined },
    } as never,
  });

it('keeps the words, the ids, the tool calls and the model’s name and finish reason', () => {
  const lean = leanReply(reply());
  expect(lean.content).toBe('مرحبا 👋 — calling the tool');
  expect(lean.id).toBe('ai-1');
  expect(lean.tool_calls).toEqual([{ id: 'kz1_0', name: 'shell', args: { command: 'ls' }, type: 'tool_call' }]);
  expect(lean.invalid_tool_calls).toEqual([
    { id: 'kz1_1', name: 'write', args: '{oops', error: 'bad json', type: 'invalid_tool_call' },
  ]);
  expect(lean.response_metadata).toEqual({ model_name: 'gpt-x', finish_reason: 'tool_calls' });
  expect(lean.additional_kwargs).toEqual({ refusal: 'none' });
});

it('drops token usage and empty fields: the stored message is much smaller', () => {
  const lean = leanReply(reply());
  expect(lean.usage_metadata).toBeUndefined();
  const size = (message: AIMessage) => JSON.stringify(message.toJSON()).length;
  expect(size(lean)).toBeLessThan(size(reply()) * 0.75);
  expect(JSON.stringify(lean.toJSON())).not.toContain('tokenUsage');
});
