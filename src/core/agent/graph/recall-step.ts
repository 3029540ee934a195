// What memory recalls for a turn, asked once per turn (at its first model call) and kept in the state,
// so every model call of the turn is sent the same block and a provider's prompt cache keeps its prefix
// for the turn's later calls.
import { HumanMessage, type BaseMessage } from '@langchain/core/messages';
import type { AgentStateValue, RecalledForTurn, TurnInfo } from './state.ts';

/** The memory's recall for a turn's message: a fenced block for the system prompt, or undefined. */
export type RecallFn = (turn: TurnInfo, query: string) => Promise<string | undefined>;

/** The text of the person's latest message. */
function lastAsked(messages: readonly BaseMessage[]): string {
  const last = [...messages].reverse().find((m) => HumanMessage.isInstance(m));
  if (!last) return '';
  if (typeof last.content === 'string') return last.content;
  return last.content.map((part) => ('text' in part && part.type === 'text' ? String(part.text) : '')).join(' ');
}

/**
 * The turn's recalled block, and the state update that keeps it (none when the state has it already, or
 * when there is no recall or no turn).
 */
export async function recalledForTurn(
  state: AgentStateValue,
  recall: RecallFn | undefined,
): Promise<{ text: string | undefined; update?: RecalledForTurn }> {
  const { turn } = state;
  if (!recall || !turn) return { text: undefined };
  if (state.recalled?.turnId === turn.id) return { text: state.recalled.text ?? undefined };
  const text = await recall(turn, lastAsked(state.messages));
  return { text, update: { turnId: turn.id, text: text ?? null } };
}

/** The system prompt with the recalled block after it (none: the prompt unchanged). */
export function promptWithRecalled(prompt: string, recalled: string | undefined): string {
  return recalled ? `${prompt}\n\n${recalled}` : prompt;
}
