// What one model call is sent, and what leaves the checkpoint before it. The checkpoint rewrites the
// whole `messages` channel at every step, so a turn's cost follows the state's size: keeping only the
// window the model sees (the rest archived) keeps that cost flat however long the conversation grows.
import { RemoveMessage, SystemMessage, type BaseMessage } from '@langchain/core/messages';
import type { TranscriptArchive } from './archive.ts';
import { approxTokens, fitRequest, planWindow } from './context-window.ts';
import { isSummary, promptWithSummaries } from './summary.ts';
import { isNotice } from '../runner/transcript.ts';

/** The context window's settings and where what leaves it goes. */
export interface ContextDeps {
  /**
   * agent.context.max_tokens: the most a request's messages may cost, system prompt included (tool definitions not).
   */
  maxTokens: number;
  archive: Pick<TranscriptArchive, 'append'>;
}

/** The messages to send, and the removals to write with the model's reply. */
export interface PreparedContext {
  request: BaseMessage[];
  removals: RemoveMessage[];
}

/**
 * Builds the request (system prompt with any /compact summary, then the window's messages without
 * Kazma's notices) and archives the oldest whole turns that no longer fit, before the model is called:
 * were the process to stop after the archive and before the checkpoint, the re-run archives the same
 * messages again, which changes nothing. Without `context`, every message is sent and none removed.
 */
export async function prepareContext(input: {
  messages: BaseMessage[];
  prompt: string;
  threadId: string;
  context: ContextDeps | undefined;
}): Promise<PreparedContext> {
  const { messages, context } = input;
  const system = new SystemMessage(promptWithSummaries(input.prompt, messages.filter(isSummary)));
  const sendable = (m: BaseMessage) => !isNotice(m) && !isSummary(m);
  if (!context) return { request: [system, ...messages.filter(sendable)], removals: [] };
  const budget = context.maxTokens - approxTokens(system);
  const plan = planWindow(messages, { budget, pinned: isSummary });
  await context.archive.append(input.threadId, plan.archive, 'window');
  return {
    request: [system, ...fitRequest(plan.keep.filter(sendable), budget)],
    removals: plan.archive.map((m) => new RemoveMessage({ id: m.id! })),
  };
}
