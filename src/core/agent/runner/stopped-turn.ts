// Ending a drive a person stopped (`/stop`) as a turn that is done: what the turn said before the stop goes
// out as usual; the words being written stay, in the message showing them, with "⏹ Stopped." appended; the
// tool calls left open are answered (from the effect journal: a result, "effect unknown", or "not run"), so
// the thread's checkpoint is whole and the next message continues the conversation.
import { randomUUID } from 'node:crypto';
import { AIMessage, ToolMessage, type BaseMessage } from '@langchain/core/messages';
import type { EffectReceipt } from '../../db/index.ts';
import type { EffectJournal } from '../../effects/index.ts';
import type { SentHandOff } from '../../outbox/index.ts';
import type { RunRef } from '../../runs/index.ts';
import type { LiveReply } from '../../streaming/index.ts';
import type { AgentGraph } from '../graph/graph.ts';
import { journalCallId, type AgentStateValue } from '../graph/state.ts';
import { noticeMessage, unansweredCalls, type RepliesAnchor } from './transcript.ts';
import type { TurnOutput } from './turn-output.ts';

/** The notice a stopped turn ends with. */
export const STOPPED_TEXT = '⏹ Stopped.';

/** How long a tool that was running is given to say how it ended once stopped (a shell is killed at once). */
const SETTLE_TRIES = 20;
const SETTLE_PAUSE_MS = 50;

/** What {@link endStoppedTurn} needs. */
export interface StoppedTurnDeps {
  graph: AgentGraph;
  out: TurnOutput;
  /** Where a stopped call's receipt is read; without it every open call is answered "not run". */
  journal?: Pick<EffectJournal, 'lookup'>;
}

/** Ends the stopped drive on `run`'s thread (whose lease is held); `before`: where its replies begin. */
export async function endStoppedTurn(
  deps: StoppedTurnDeps,
  run: RunRef,
  options: { before: RepliesAnchor; live?: LiveReply | undefined; sent?: SentHandOff | undefined },
): Promise<void> {
  const config = { configurable: { thread_id: run.threadId } };
  const values = (await deps.graph.getState(config)).values as Partial<AgentStateValue>;
  const messages = values.messages ?? [];
  const { live, sent } = options;
  await deps.out.replies(run, { messages, answeredBy: null }, options.before, sent, live);
  const closing = await answerOpenCalls(messages, run.threadId, deps.journal);
  const partial = live?.unfinished();
  const text = [partial ? `${partial.text}\n\n${STOPPED_TEXT}` : STOPPED_TEXT, ...closing.unknown].join('\n\n');
  // Kazma's words, not the model's: shown in the chat, never sent to the model as its own.
  const notice = noticeMessage(text, `stopped-${randomUUID()}`);
  // As the tools node would: the open calls answered, the turn ended (tools → END after an AI message).
  await deps.graph.updateState(config, { messages: [...closing.messages, notice], verdicts: {} }, 'tools');
  const refs = partial?.refs;
  await deps.out.deliver(run, [{ key: notice.id!, text }], sent, refs && (() => refs));
}

/** ToolMessages for the calls left open, and a warning for each whose effect is unknown. */
async function answerOpenCalls(
  messages: BaseMessage[],
  threadId: string,
  journal: StoppedTurnDeps['journal'],
): Promise<{ messages: ToolMessage[]; unknown: string[] }> {
  const open = unansweredCalls(messages);
  let index = messages.length - 1;
  while (index > 0 && !AIMessage.isInstance(messages[index])) index--;
  const answers: ToolMessage[] = [];
  const unknown: string[] = [];
  for (const call of open) {
    const key = { threadId, callId: journalCallId({ message: messages[index]!, index }, call.id) };
    const receipt = journal && (await settled(journal, key));
    const answer = (content: string, ok = false) =>
      answers.push(
        new ToolMessage({ tool_call_id: call.id, name: call.name, content, status: ok ? 'success' : 'error' }),
      );
    if (!receipt) answer('not run: the turn was stopped (/stop)');
    else if (receipt.state === 'finished' && receipt.result)
      answer(receipt.result.ok ? receipt.result.output : receipt.result.error, receipt.result.ok);
    else {
      answer('effect unknown: the turn was stopped (/stop) while this call ran, and it never said how it ended');
      unknown.push(
        `⚠️ \`${call.name}\` was running when the turn was stopped and never said how it ended, so I cannot ` +
          `tell whether it took effect. Check whether \`${call.name}\` made its change.`,
      );
    }
  }
  return { messages: answers, unknown };
}

/** The call's receipt once it is no longer `started` (or after a short wait, as it is). */
async function settled(
  journal: NonNullable<StoppedTurnDeps['journal']>,
  key: { threadId: string; callId: string },
): Promise<EffectReceipt | undefined> {
  for (let tries = 1; ; tries++) {
    const receipt = await journal.lookup(key);
    if (receipt?.state !== 'started' || tries >= SETTLE_TRIES) return receipt;
    await new Promise((resolve) => setTimeout(resolve, SETTLE_PAUSE_MS));
  }
}
