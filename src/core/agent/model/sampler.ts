import { AIMessage, HumanMessage, SystemMessage } from '@langchain/core/messages';
import { createModelChain } from './model-chain.ts';
import { isModelConfigured } from './model-factory.ts';
import type { ModelSettings } from './model-settings.ts';
import { textOf } from '../runner/transcript.ts';

/**
 * One completion from the configured model (retries and fallbacks included), without tools and outside
 * any conversation: what an MCP server's approved sampling request gets.
 */
export function createSampler(settings: ModelSettings) {
  let chain: ReturnType<typeof createModelChain> | undefined;
  return async (request: {
    system?: string;
    messages: ReadonlyArray<{ role: 'user' | 'assistant'; text: string }>;
  }): Promise<{ text: string; model: string }> => {
    if (!isModelConfigured(settings)) throw new Error('no model is configured, so nothing can be written');
    chain ??= createModelChain(settings);
    const reply = await chain.invoke([
      ...(request.system ? [new SystemMessage(request.system)] : []),
      ...request.messages.map((m) => (m.role === 'assistant' ? new AIMessage(m.text) : new HumanMessage(m.text))),
    ]);
    return { text: textOf(reply.message), model: reply.model };
  };
}
