// The model's words as it writes them, for a LiveReply. A LangChain callback handler that prefers
// streaming: with it in a call's callbacks, a chat model's invoke() streams its answer (stream: true)
// and tells each token, while the caller still gets the whole message (BaseChatModel._generateUncached).
// It is attached to the answer's model call only (liveCallConfig), never to the whole graph: callbacks on
// the graph would have LangChain trace every runnable in it, serialising the state at each step.
import { BaseCallbackHandler } from '@langchain/core/callbacks/base';
import { CallbackManager } from '@langchain/core/callbacks/manager';
import type { RunnableConfig } from '@langchain/core/runnables';
import type { LiveReply } from './live-reply.ts';

/**
 * Where a drive's live reply travels in the graph's config (`configurable`): a key LangGraph leaves out
 * of checkpoint and tracing metadata (it starts with `__`, and the value is not a primitive).
 */
export const LIVE_REPLY_KEY = '__kazma_live_reply';

/** The live reply of the drive `config` belongs to, if its words are shown as they come. */
export function liveReplyOf(config: RunnableConfig | undefined): LiveReply | undefined {
  return config?.configurable?.[LIVE_REPLY_KEY] as LiveReply | undefined;
}

/** `config` for the answer's model call: with a token tap when the drive has a live reply. */
export function liveCallConfig(config: RunnableConfig): RunnableConfig {
  const live = liveReplyOf(config);
  if (!live) return config;
  const tap = new TokenTap(live);
  const callbacks =
    config.callbacks instanceof CallbackManager ? config.callbacks.copy([tap]) : [...(config.callbacks ?? []), tap];
  return { ...config, callbacks };
}

class TokenTap extends BaseCallbackHandler {
  readonly name = 'kazma-token-tap';
  readonly lc_prefer_streaming = true;
  readonly #live: LiveReply;
  readonly #calls = new Set<string>();

  constructor(live: LiveReply) {
    // Awaited: a token is shown in order, before the call's end is told.
    super({ _awaitHandler: true });
    this.#live = live;
  }

  override handleChatModelStart(llm: { id?: string[] }, _messages: unknown, runId: string): void {
    // An OpenAI-compatible model's words are told by Kazma's fetch (core/agent/model/streamed-answer.ts).
    if (llm.id?.includes('ChatOpenAI')) return;
    this.#calls.add(runId);
    this.#live.begin(runId);
  }

  override handleLLMNewToken(token: string, _idx: unknown, runId: string): void {
    if (this.#calls.has(runId)) this.#live.write(runId, token);
  }

  override handleLLMError(_error: unknown, runId: string): void {
    if (this.#calls.delete(runId)) this.#live.failed(runId);
  }

  override handleLLMEnd(_output: unknown, runId: string): void {
    if (this.#calls.delete(runId)) this.#live.ended(runId);
  }
}
