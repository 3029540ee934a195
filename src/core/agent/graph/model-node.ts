import { randomUUID } from 'node:crypto';
import type { RunnableConfig } from '@langchain/core/runnables';
import { systemClock, type Clock } from '../../clock.ts';
import { leanReply } from './lean-reply.ts';
import { withOwnCallIds } from './call-ids.ts';
import type { ModelChains } from '../model/chain-provider.ts';
import { prepareContext, type ContextDeps } from './context.ts';
import { ModelUnavailableError } from '../model/model-errors.ts';
import { modelFailedText, NO_MODEL_TEXT, noKeyText } from '../runner/replies.ts';
import type { AgentStateUpdate, AgentStateValue } from './state.ts';
import { noticeMessage } from '../runner/transcript.ts';
import { liveCallConfig, liveReplyOf } from '../../streaming/index.ts';
import { withAnswerWords } from '../model/answer-words.ts';
import { promptWithRecalled, type RecallFn, recalledForTurn } from './recall-step.ts';

/** What the `model` node needs. */
export interface ModelNodeDeps {
  chains: ModelChains;
  /** The system prompt for a turn's chat, built per call (it names the date; the chat's house instructions). */
  systemPrompt: (chat?: string) => string;
  /** Told as each model call begins and ends (the run supervisor's progress stamp). */
  progress?: (threadId: string) => void;
  /** The context window (agent.context.max_tokens) and its archive; absent: the whole thread is sent and kept. */
  context?: ContextDeps;
  /** What memory recalls for the turn's message, added to the system prompt; absent: nothing is recalled. */
  recall?: RecallFn;
}

/**
 * The `model` node: one call of the model chain (retries and fallbacks inside it), bound to the
 * enabled tools. It never throws for a model failure: the turn's reply becomes the ⚠️ text, which has
 * no tool calls, so the graph ends and no further model request is made. Every new model message
 * clears the verdicts of the previous one.
 */
export function modelNode(deps: ModelNodeDeps) {
  return async (state: AgentStateValue, config: RunnableConfig): Promise<AgentStateUpdate> => {
    const chat = state.turn?.chat;
    const chain = deps.chains.current(chat);
    const threadId = String(config.configurable?.thread_id ?? '');
    const recalled = await recalledForTurn(state, deps.recall);
    const remembered = recalled.update && { recalled: recalled.update };
    // Kazma's own words (notices) are left out of the request: never sent to the model as if it had said them.
    const { request, removals } = await prepareContext({
      messages: state.messages,
      prompt: promptWithRecalled(deps.systemPrompt(chat), recalled.text),
      threadId,
      context: deps.context,
    });
    if (!chain)
      return {
        messages: [...removals, noticeMessage(unconfiguredText(deps.chains, chat), `notice-${randomUUID()}`)],
        verdicts: {},
        answeredBy: null,
        ...remembered,
      };
    try {
      deps.progress?.(threadId);
      // With the drive's live reply (core/streaming), this call's words are shown as they come.
      // OpenAI-compatible answers are streamed by Kazma's fetch (model/streamed-answer.ts), Anthropic's by LangChain.
      const reply = await withAnswerWords(liveReplyOf(config), () => chain.invoke(request, liveCallConfig(config)));
      deps.progress?.(threadId);
      // The messages reducer merges messages by id, and OpenAI-compatible servers may reuse response
      // ids (a counter restarted, a constant): a reused id would overwrite an earlier reply in the
      // history. Our own id keeps every reply; the provider's id stays in response_metadata. Tool calls
      // get ids of Kazma's own too: every decision about a call is keyed by its id.
      const message = leanReply(withOwnCallIds(reply.message));
      message.id = `ai-${randomUUID()}`;
      return {
        messages: [...removals, message],
        verdicts: {},
        answeredBy: { model: reply.model, fallback: reply.usedFallback },
        ...remembered,
      };
    } catch (error) {
      if (error instanceof ModelUnavailableError) {
        return {
          messages: [...removals, noticeMessage(modelFailedText(error), `notice-${randomUUID()}`)],
          verdicts: {},
          answeredBy: null,
          ...remembered,
        };
      }
      throw error;
    }
  };
}

/**
 * The default system prompt: who Kazma is and how approvals work, plus today's date on `clock`. `extra` adds
 * lines other modules contribute (the Agent Skills list), read per call; none: the prompt is unchanged.
 * `house` gives the operators' instructions for a chat (`/config prompt`), last, under their own heading.
 */
export function defaultSystemPrompt(
  zone: string,
  clock: Clock = systemClock,
  extra?: () => readonly string[],
  house?: (chat: string) => readonly string[],
): (chat?: string) => string {
  // Built once: a DateTimeFormat per turn cost ~2 % of a turn's CPU.
  const format = new Intl.DateTimeFormat('en-GB', { timeZone: zone, dateStyle: 'full' });
  return (chat) => {
    const today = format.format(clock.now());
    const rules = chat === undefined ? [] : (house?.(chat) ?? []);
    const base =
      `You are Kazma, a self-hosted assistant. Today is ${today} (${zone}). ` +
      'Some tools change things and wait for a person to approve them; when a call is denied or refused, ' +
      'do not retry it unchanged: explain, or ask the user what to do instead.';
    const instructions = rules.length > 0 ? ["House instructions from this Kazma's operators:", ...rules] : [];
    return [base, ...(extra?.() ?? []), ...instructions].join('\n');
  };
}

/** The answer while no model can be called: no model at all, or a named one with no key. */
function unconfiguredText(chains: ModelChains, chat: string | undefined): string {
  return chains.gap === 'key' ? noKeyText(chains.labels(chat)[0] ?? 'configured') : NO_MODEL_TEXT;
}
