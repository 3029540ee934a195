// One drive of the agent graph, with checkpoint durability chosen by phase (see docs/architecture.md,
// "Durability rules"):
// - `think` (a new message): checkpoints are written only when the drive stops (`exit`) — at the end, at
//   a question, on an error, or just before the first tool runs (`interruptBefore: tools`). A crash before
//   that loses nothing: no effect has happened, and the inbox takes the message up again from the top. A
//   simple turn writes one checkpoint instead of one per step.
// - `act` (everything else: tools, resumes, continuing a cut-short run): every step is durable (`sync`),
//   so a tool's call and its result are in the checkpoint before the next step, and the effect journal
//   finds a re-run's receipts.
import { Command, INTERRUPT, type Interrupt } from '@langchain/langgraph';
import type { ApprovalQuestion } from '../../approvals/index.ts';
import { LIVE_REPLY_KEY, type LiveReply } from '../../streaming/index.ts';
import type { AgentGraph } from '../graph/graph.ts';
import type { AgentStateValue } from '../graph/state.ts';

export type DrivePhase = 'think' | 'act';
export type GraphInput = Parameters<AgentGraph['invoke']>[0];
export type DriveOutput = AgentStateValue & { [INTERRUPT]?: Interrupt<ApprovalQuestion>[] };

export async function invokePhased(
  graph: AgentGraph,
  input: GraphInput,
  options: {
    threadId: string;
    phase: DrivePhase;
    recursionLimit: number;
    signal: AbortSignal;
    /** Shows the answer as the model writes it (core/streaming): rides in `configurable`, never persisted. */
    live?: LiveReply;
  },
): Promise<DriveOutput> {
  const common = { recursionLimit: options.recursionLimit, signal: options.signal };
  const configurable = { thread_id: options.threadId, ...(options.live && { [LIVE_REPLY_KEY]: options.live }) };
  if (options.phase === 'think') {
    const thought: DriveOutput = await graph.invoke(input, {
      configurable,
      ...common,
      durability: 'exit',
      interruptBefore: ['tools'],
    });
    // Stopped before `tools` (an empty interrupt list; a question has one): the model's calls are durable
    // now, and the rest of the turn runs step by step.
    if (thought[INTERRUPT]?.length !== 0) return thought;
    return graph.invoke(null, { configurable, ...common, durability: 'sync' });
  }
  // Strict resume: an id that is not pending throws instead of silently re-raising the question.
  const strict = input instanceof Command ? { __pregel_strict_resume: true } : {};
  return graph.invoke(input, { configurable: { ...configurable, ...strict }, ...common, durability: 'sync' });
}
