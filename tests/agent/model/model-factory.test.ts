// Which entries count as configured, and what the built clients are pointed at.
import { describe, expect, it } from 'vitest';
import { ChatAnthropic } from '@langchain/anthropic';
import { ChatOpenAI } from '@langchain/openai';
import { createChatModel, isModelConfigured } from '../../../src/core/agent/model/model-factory.ts';
import { createModelChain } from '../../../src/core/agent/model/model-chain.ts';
import { startFakeLlm } from '../../fakes/llm-server.ts';
import { fakeSettings, readFileTool } from './settings.ts';
import { withAnswerWords } from '../../../src/core/agent/model/answer-words.ts';

describe('model factory', () => {
  it('needs a name and either a key or a base_url', () => {
    expect(isModelConfigured({ name: 'gpt-4o-mini', api_key: 'sk-1', base_url: '' })).toBe(true);
    expect(isModelConfigured({ name: 'qwen', api_key: '', base_url: 'http://127.0.0.1:8080/v1' })).toBe(true);
    expect(isModelConfigured({ name: 'gpt-4o-mini', api_key: '', base_url: '' })).toBe(false);
    expect(isModelConfigured({ name: ' ', api_key: 'sk-1', base_url: '' })).toBe(false);
  });

  it('refuses an unconfigured model, naming the keys to set', () => {
    expect(() =>
      createChatModel({ provider: 'openai', name: 'gpt-4o-mini', base_url: '', api_key: '' }, { timeoutMs: 1_000 }),
    ).toThrow(
      expect.objectContaining({ code: 'model_not_configured', message: expect.stringContaining('model.api_key') }),
    );
  });

  it('refuses a chain whose fallback is unconfigured, at build time', () => {
    const settings = fakeSettings('http://127.0.0.1:9/v1', {
      fallbacks: [{ provider: 'anthropic', name: 'claude', base_url: '', api_key: '' }],
    });
    expect(() => createModelChain(settings)).toThrow(expect.objectContaining({ code: 'model_not_configured' }));
  });

  it('builds clients with no retries of their own, the timeout, and explicit endpoints', () => {
    const oa = createChatModel(
      { provider: 'openai', name: 'gpt-4o-mini', base_url: '', api_key: 'sk-1' },
      { timeoutMs: 1_234 },
    );
    expect(oa).toBeInstanceOf(ChatOpenAI);
    expect((oa as ChatOpenAI).timeout).toBe(1_234);
    expect((oa as ChatOpenAI).streaming).toBe(false);
    // Never streamed by LangChain: a live answer is streamed by Kazma's fetch (streamed-answer.ts).
    expect((oa as ChatOpenAI).disableStreaming).toBe(true);
    const an = createChatModel(
      { provider: 'anthropic', name: 'claude-x', base_url: 'http://127.0.0.1:9', api_key: '' },
      { timeoutMs: 1_234 },
    );
    expect(an).toBeInstanceOf(ChatAnthropic);
    // No fake Anthropic server to count requests on, so read the caller's setting (protected in the types).
    expect((an.caller as unknown as { maxRetries: number }).maxRetries).toBe(0);
    expect((an as ChatAnthropic).apiUrl).toBe('http://127.0.0.1:9');
    expect((an as ChatAnthropic).apiKey).toBe('not-needed');
  });

  it('makes exactly one request per invoke: the OpenAI client does not retry on its own', async () => {
    const llm = await startFakeLlm();
    try {
      llm.failNext(1, { status: 500 });
      const model = createChatModel(
        { provider: 'openai', name: 'm', base_url: llm.baseURL, api_key: '' },
        { timeoutMs: 5_000 },
      );
      await expect(model.invoke('hi')).rejects.toMatchObject({ status: 500 });
      expect(llm.requests).toHaveLength(1);
    } finally {
      await llm.close();
    }
  });

  it('with its words wanted, streams a tool call at the fetch and hands it over whole, with usage', async () => {
    const llm = await startFakeLlm();
    try {
      llm.script({
        text: 'Reading it now.',
        toolCalls: [{ name: 'read_file', args: { path: 'c.txt' }, id: 'call_3' }],
      });
      const model = createChatModel(
        { provider: 'openai', name: 'm', base_url: llm.baseURL, api_key: '' },
        { timeoutMs: 5_000 },
      );
      const told: string[] = [];
      const words = {
        begin: () => told.push('begin'),
        write: (_call: string, text: string) => told.push(text),
        failed: () => told.push('failed'),
        ended: () => told.push('ended'),
      };
      const whole = await withAnswerWords(words, () => model.bindTools!([readFileTool]).invoke('read c.txt'));
      expect(llm.requests[0]!.stream).toBe(true);
      expect(llm.requests[0]!.stream_options).toEqual({ include_usage: true });
      expect(told[0]).toBe('begin');
      expect(told.at(-1)).toBe('ended');
      expect(told.slice(1, -1).join('')).toBe('Reading it now.');
      expect(whole.content).toBe('Reading it now.');
      expect(whole.tool_calls).toEqual([
        { name: 'read_file', args: { path: 'c.txt' }, id: 'call_3', type: 'tool_call' },
      ]);
      expect(whole.usage_metadata?.total_tokens).toBeGreaterThan(0);
    } finally {
      await llm.close();
    }
  });
});
