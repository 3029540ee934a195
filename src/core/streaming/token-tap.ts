// The model's words as it writes them, for a LiveReply. A LangChain callback handler that prefers
// streaming: with it in a call's callbacks, a chat model's invoke() streams its answer (stream: true)
// and tells each token, while the caller still gets the whole message (BaseChatModel._generateUncached).
// Only the calls tagged ANSWER_TAG (the agent's model node) are shown: a summary the context window
// asks for is not an answer.
import { BaseCallbackHandler } from '@langchain/core/callbacks/base';
import type { LiveReply } from './live-reply.ts';

/** The tag of the model call whose words are the answer (core/agent/graph/model-node.ts). */
export const ANSWER_TAG = 'kazma:answer';

export class TokenTap extends BaseCallbackHandler {
  readonly name = 'kazma-token-tap';
  readonly lc_prefer_streaming = true;
  readonly #live: LiveReply;
  readonly #calls = new Set<string>();

  constructor(live: LiveReply) {
    // Awaited: a token is shown in order, before the call's end is told.
    super({ _awaitHandler: true });
    this.#live = live;
  }

  override handleChatModelStart(
    _llm: unknown,
    _messages: unknown,
    runId: string,
    _parentRunId?: string,
    _extra?: unknown,
    tags?: string[],
  ): void {
    if (!tags?.includes(ANSWER_TAG)) return;
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
