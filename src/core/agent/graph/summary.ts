// A /compact summary in the conversation: one message standing for the turns it replaced. It rides in
// the system prompt, not as a message of its own: providers differ on where system messages may stand
// (Anthropic's client accepts one, first), and it must never read as something the person said.
import { SystemMessage, type BaseMessage } from '@langchain/core/messages';

const SUMMARY_PREFIX = 'summary-';

/** The message that replaces compacted turns; `id` names it for good (the archive keys on it). */
export function summaryMessage(text: string, id: string): SystemMessage {
  return new SystemMessage({ content: text, id: `${SUMMARY_PREFIX}${id}` });
}

/** True for a {@link summaryMessage}. */
export function isSummary(message: BaseMessage): boolean {
  return SystemMessage.isInstance(message) && (message.id?.startsWith(SUMMARY_PREFIX) ?? false);
}

/** The system prompt with the conversation's summaries appended (none: the prompt unchanged). */
export function promptWithSummaries(prompt: string, summaries: readonly BaseMessage[]): string {
  if (summaries.length === 0) return prompt;
  const texts = summaries.map((m) => (typeof m.content === 'string' ? m.content : JSON.stringify(m.content)));
  return (
    `${prompt}\n\nSummary of the earlier conversation (older turns were compacted into ` + `it):\n${texts.join('\n\n')}`
  );
}
