// The context window: which messages the model is sent, and which leave the checkpoint for the archive.
// Counting is approximate on purpose (a tokenizer per provider would cost more than the turn it trims,
// and js-tiktoken fetches its ranks from the network); the budget is a ceiling, not an exact fit.
import { AIMessage, HumanMessage, ToolMessage, type BaseMessage } from '@langchain/core/messages';
import { textOf } from '../runner/transcript.ts';

/** Characters per token of the approximate counter: ~4 for English text in GPT-style tokenizers. */
const CHARS_PER_TOKEN = 4;
/** Per message: role, separators and name, as the OpenAI chat format spends them. */
const MESSAGE_OVERHEAD = 4;
/**
 * Per image a person sent (core/media): about what providers charge for one (OpenAI ~765 at 1024×1024
 * high detail, Anthropic ~1,600 at 1.15 megapixels), never the length of its data: URL, which is no text.
 */
const IMAGE_TOKENS = 1_000;

/**
 * Each message's count, once: every turn plans the window over the whole conversation again, and a
 * message in a thread's state is never changed in place (see channel-values.ts), so its count holds.
 */
const counted = new WeakMap<BaseMessage, number>();

/** Approximate tokens one message costs in a request: its text, its tool calls' names and arguments, overhead. */
export function approxTokens(message: BaseMessage): number {
  const known = counted.get(message);
  if (known !== undefined) return known;
  let chars = textOf(message).length;
  if (AIMessage.isInstance(message)) {
    for (const call of message.tool_calls ?? []) chars += call.name.length + JSON.stringify(call.args ?? {}).length;
  }
  const images = Array.isArray(message.content) ? message.content.filter((p) => p.type === 'image_url').length : 0;
  const tokens = MESSAGE_OVERHEAD + Math.ceil(chars / CHARS_PER_TOKEN) + images * IMAGE_TOKENS;
  counted.set(message, tokens);
  return tokens;
}

/** Approximate tokens of messages. */
export function approxTokensOf(messages: readonly BaseMessage[]): number {
  return messages.reduce((sum, m) => sum + approxTokens(m), 0);
}

/**
 * The conversation cut into turns: each block starts at a person's message and runs to the next one, so
 * an AI message that asked for tools and the ToolMessages answering it are always in one block (closing
 * "not run" results are written before the next person's message). Messages before the first person's
 * message form a block of their own.
 */
export function turnBlocks(messages: readonly BaseMessage[]): BaseMessage[][] {
  const blocks: BaseMessage[][] = [];
  for (const message of messages) {
    if (HumanMessage.isInstance(message) || blocks.length === 0) blocks.push([message]);
    else blocks.at(-1)!.push(message);
  }
  return blocks;
}

/** How a thread's messages split against the budget. */
export interface WindowPlan {
  /** The oldest whole turns that no longer fit: they leave the checkpoint (into the archive). */
  archive: BaseMessage[];
  /**
   * What stays: all of it, as it was, when it fits; else pinned messages, then the newest whole turns that fit, the
   * current turn always.
   */
  keep: BaseMessage[];
}

/**
 * What share of the budget a trim leaves. Trimming only to just under the budget made every later turn
 * go over again: each turn archived one turn (a statement, a checkpoint delta, the reducer's removal
 * path), and the request's first messages changed every turn, so a provider's prompt cache never matched
 * its prefix. Trimming to 85 % lets the next turns fit unchanged: at the default window and 200-character
 * messages (the long-thread bench's chat), one trim in about forty turns.
 */
export const TRIM_TO = 0.85;

/**
 * Splits `messages` so that `keep` fits `budget` tokens where it can: nothing leaves while everything
 * fits; once it does not, whole turns are dropped oldest first until what is kept fits {@link TRIM_TO}
 * of the budget — never the last (current) turn, never a pinned message (a /compact summary). Only a
 * prefix of the unpinned turns is ever archived, so whatever reads positions can tell "archived" from
 * "new": a message that is gone was older than every message that is left.
 *
 * @example
 * const { archive, keep } = planWindow(state.messages, { budget: 32_000, pinned: isSummary });
 */
export function planWindow(
  messages: readonly BaseMessage[],
  options: { budget: number; pinned?: (m: BaseMessage) => boolean },
): WindowPlan {
  if (approxTokensOf(messages) <= options.budget) return { archive: [], keep: [...messages] };
  const pinned = messages.filter((m) => options.pinned?.(m) === true);
  const blocks = turnBlocks(messages.filter((m) => options.pinned?.(m) !== true));
  const target = Math.floor(options.budget * TRIM_TO);
  let used = approxTokensOf(pinned);
  let first = blocks.length;
  // From the newest turn back; the current turn is kept whatever it costs.
  while (first > 0) {
    const cost = approxTokensOf(blocks[first - 1]!);
    if (first < blocks.length && used + cost > target) break;
    used += cost;
    first--;
  }
  return { archive: blocks.slice(0, first).flat(), keep: [...pinned, ...blocks.slice(first).flat()] };
}

/**
 * The messages of a request when even the kept turns exceed the budget (a turn whose tool results are
 * huge): the turn's opening message stays, and its oldest tool steps — an AI message with its
 * ToolMessages, never one without the other — are left out of this request (not out of the state) until
 * the rest fits or one step is left.
 */
export function fitRequest(messages: readonly BaseMessage[], budget: number): BaseMessage[] {
  let total = approxTokensOf(messages);
  if (total <= budget) return [...messages];
  const opening = lastIndexWhere(messages, (m) => HumanMessage.isInstance(m));
  const head = messages.slice(0, opening + 1);
  const steps = toolSteps(messages.slice(opening + 1));
  while (steps.length > 1 && total > budget) total -= approxTokensOf(steps.shift()!);
  return [...head, ...steps.flat()];
}

/** A turn's tail cut into steps: each AI message with the ToolMessages after it. */
function toolSteps(messages: readonly BaseMessage[]): BaseMessage[][] {
  const steps: BaseMessage[][] = [];
  for (const message of messages) {
    if (ToolMessage.isInstance(message) && steps.length > 0) steps.at(-1)!.push(message);
    else steps.push([message]);
  }
  return steps;
}

/** The position of the last message `test` accepts, -1 when none does. */
function lastIndexWhere(messages: readonly BaseMessage[], test: (m: BaseMessage) => boolean): number {
  for (let i = messages.length - 1; i >= 0; i--) if (test(messages[i]!)) return i;
  return -1;
}
