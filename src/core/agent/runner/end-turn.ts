// Ending a turn that cannot be finished (it stopped the process `turns.max_attempts` times): its question is
// superseded, its open calls answered "not run", and the thread closed with a notice (TurnRunner.endTurn).
import type { ApprovalBroker } from '../../approvals/index.ts';
import type { RunRef } from '../../runs/index.ts';
import type { AgentGraph } from '../graph/graph.ts';
import type { AgentStateValue } from '../graph/state.ts';
import { configOf } from './graph-drive.ts';
import { closeCalls, hasQuestion, noticeMessage, unansweredCalls } from './transcript.ts';
import type { TurnOutput } from './turn-output.ts';

/** What {@link endTurn} needs. */
export interface EndTurnDeps {
  graph: AgentGraph;
  broker: Pick<ApprovalBroker, 'supersede'>;
  out: Pick<TurnOutput, 'deliver'>;
}

/** Ends turn `input.turnId` on the run's thread with `input.text` as a notice; the lease is the caller's. */
export async function endTurn(
  deps: EndTurnDeps,
  { threadId, ...run }: RunRef,
  input: { turnId: string; text: string },
): Promise<void> {
  const config = configOf(threadId);
  const snapshot = await deps.graph.getState(config);
  const values = snapshot.values as Partial<AgentStateValue>;
  const notice = noticeMessage(input.text, `notice-${input.turnId}`);
  if (values.turn?.id === input.turnId && (snapshot.next.length > 0 || hasQuestion(snapshot.tasks))) {
    if (hasQuestion(snapshot.tasks)) await deps.broker.supersede(threadId, 'the turn was ended after repeated crashes');
    const closing = closeCalls(unansweredCalls(values.messages ?? []), 'the turn was ended after repeated crashes');
    await deps.graph.updateState(config, { messages: [...closing, notice], verdicts: {} }, 'tools');
  }
  await deps.out.deliver({ threadId, ...run }, [{ key: notice.id!, text: input.text }]);
}
