// /compact: the model summarises a thread's older turns into one message that replaces them in the
// checkpoint (the originals go to the archive, so nothing said is lost); the newest turn stays as it was.
import { randomUUID } from 'node:crypto';
import {
  AIMessage,
  HumanMessage,
  RemoveMessage,
  SystemMessage,
  ToolMessage,
  type BaseMessage,
} from '@langchain/core/messages';
import { REMOVE_ALL_MESSAGES } from '@langchain/langgraph';
import type { TranscriptArchive } from '../graph/archive.ts';
import type { ModelChains } from '../model/chain-provider.ts';
import { turnBlocks } from '../graph/context-window.ts';
import type { AgentGraph } from '../graph/graph.ts';
import type { AgentStateValue } from '../graph/state.ts';
import { isSummary, summaryMessage } from '../graph/summary.ts';
import type { ThreadLeases } from '../../turns/index.ts';
import { hasQuestion, isNotice, textOf } from './transcript.ts';

/** How a /compact ended. */
export type CompactOutcome =
  | { status: 'compacted'; messages: number }
  | { status: 'nothing' }
  | { status: 'busy' }
  | { status: 'no_model' }
  | { status: 'failed'; reason: string };

/** Options for {@link Compactor}. */
export interface CompactorOptions {
  graph: AgentGraph;
  chains: Pick<ModelChains, 'current'>;
  archive: Pick<TranscriptArchive, 'append'>;
  /** The thread's lease, so a /compact never runs beside a turn of another process. */
  leases?: Pick<ThreadLeases, 'run'>;
  /** Newest turns kept word for word; default 1. */
  keepTurns?: number;
}

/** Longest piece of one message put in the text to summarise: a huge tool output says little more. */
const MAX_PIECE = 2_000;

const INSTRUCTIONS =
  'You compact a conversation between a person and Kazma, an assistant. Write a concise summary of the ' +
  'conversation below that keeps every fact, decision, name, number, open question and promise the ' +
  'assistant will need to carry on. Write the summary only, in the language of the conversation; do not call tools.';

export class Compactor {
  readonly #o: CompactorOptions;

  constructor(options: CompactorOptions) {
    this.#o = options;
  }

  /**
   * Compacts the thread's older turns; a thread in the middle of a turn (running or waiting on a question) is left
   * alone.
   */
  compact(threadId: string): Promise<CompactOutcome> {
    const work = () => this.#compact(threadId);
    return this.#o.leases ? this.#o.leases.run(threadId, work) : work();
  }

  async #compact(threadId: string): Promise<CompactOutcome> {
    const config = { configurable: { thread_id: threadId } };
    const snapshot = await this.#o.graph.getState(config);
    if (snapshot.next.length > 0 || hasQuestion(snapshot.tasks)) return { status: 'busy' };
    const messages = (snapshot.values as Partial<AgentStateValue>).messages ?? [];
    const blocks = turnBlocks(messages.filter((m) => !isSummary(m)));
    const keep = Math.max(1, this.#o.keepTurns ?? 1);
    if (blocks.length <= keep) return { status: 'nothing' };
    const older = [...messages.filter(isSummary), ...blocks.slice(0, -keep).flat()];
    const kept = blocks.slice(-keep).flat();
    const chain = this.#o.chains.current();
    if (!chain) return { status: 'no_model' };
    let text: string;
    try {
      const reply = await chain.invoke([new SystemMessage(INSTRUCTIONS), new HumanMessage(render(older))]);
      text = textOf(reply.message).trim();
    } catch (error) {
      return { status: 'failed', reason: error instanceof Error ? error.message : String(error) };
    }
    if (text === '') return { status: 'failed', reason: 'the model wrote no summary' };
    // Archive first: were the process to stop before the checkpoint changes, a second /compact archives
    // the same messages again, which changes nothing.
    await this.#o.archive.append(threadId, older, 'compact');
    const summary = summaryMessage(text, randomUUID());
    // The messages reducer appends what is new; clearing and writing [summary, ...kept] puts the summary first.
    await this.#o.graph.updateState(
      config,
      { messages: [new RemoveMessage({ id: REMOVE_ALL_MESSAGES }), summary, ...kept] },
      'model',
    );
    return { status: 'compacted', messages: older.length };
  }
}

/** The older turns as plain text for the summariser; Kazma's notices are not the conversation. */
function render(messages: readonly BaseMessage[]): string {
  const piece = (text: string) => (text.length > MAX_PIECE ? `${text.slice(0, MAX_PIECE)} …(cut)` : text);
  return messages
    .flatMap((m): string[] => {
      if (isSummary(m)) return [`Summary of what came before: ${textOf(m)}`];
      if (isNotice(m)) return [];
      if (HumanMessage.isInstance(m)) return [`Person: ${piece(textOf(m))}`];
      if (ToolMessage.isInstance(m)) return [`Tool ${m.name ?? ''} result: ${piece(textOf(m))}`];
      if (AIMessage.isInstance(m)) {
        const calls = (m.tool_calls ?? []).map((c) => `Assistant called ${c.name}(${piece(JSON.stringify(c.args))})`);
        const said = textOf(m).trim();
        return [...(said ? [`Assistant: ${piece(said)}`] : []), ...calls];
      }
      return [];
    })
    .join('\n');
}
