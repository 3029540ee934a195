import { interrupt } from '@langchain/langgraph';
import type { ApprovalQuestion, Decision } from '../approvals/port.ts';
import { hasDistinctCallIds } from './call-ids.ts';
import type { ToolContext } from '../tools/define.ts';
import type { ToolRegistry } from '../tools/registry.ts';
import { callIdOf, pendingToolMessage, type AgentStateUpdate, type AgentStateValue, type Verdict } from './state.ts';

/** What the `gate` node needs. */
export interface GateNodeDeps {
  registry: ToolRegistry;
  /** An earlier "always" covers this call (ApprovalBroker.isGranted). */
  isGranted: (call: { chat: string; tool: string; args: unknown }) => Promise<boolean>;
  toolContext: (signal?: AbortSignal) => ToolContext;
}

/** The resume value the runner sends: the decision plus the call it answers. */
export interface GateAnswer {
  callId: string;
  decision: Decision;
  by?: string;
  reason?: string;
}

/**
 * The `gate` node: classifies each tool call of the latest model message and records a verdict.
 * It raises AT MOST ONE interrupt per run (for the first call that needs a person and has no
 * decision yet) and runs no tool, so re-running it from the top on resume is harmless: classify and
 * its guards change nothing. The conditional edge brings the graph back here until every call has a
 * verdict, each question in its own run with its own interrupt id.
 */
export function gateNode(deps: GateNodeDeps) {
  return async (state: AgentStateValue): Promise<AgentStateUpdate> => {
    const pending = pendingToolMessage(state.messages);
    if (!pending) return {};
    const calls = pending.message.tool_calls!;
    if (!hasDistinctCallIds(calls)) {
      // Keys would collide: a decision for one call would also answer another. Refuse them all.
      const reason = 'the tool calls of this message did not each have their own id, so none of them ran; call the tools again';
      return { verdicts: Object.fromEntries(calls.map((call, i) => [callIdOf(call, i), { action: 'refuse', reason }])) };
    }
    const verdicts: Record<string, Verdict> = { ...state.verdicts };
    const ctx = deps.toolContext();
    let question: ApprovalQuestion | undefined;
    for (const [position, call] of calls.entries()) {
      const callId = callIdOf(call, position);
      if (verdicts[callId]) continue;
      const c = await deps.registry.classify(call.name, call.args, ctx);
      if (c.kind === 'run') verdicts[callId] = { action: 'run', via: 'tier' };
      else if (c.kind === 'refuse') verdicts[callId] = { action: 'refuse', reason: c.reason };
      else if (c.kind === 'invalid') verdicts[callId] = { action: 'invalid', error: c.error };
      else if (state.turn && (await deps.isGranted({ chat: state.turn.chat, tool: call.name, args: c.args }))) {
        verdicts[callId] = { action: 'run', via: 'grant' };
      } else {
        const tier = c.tool ? (c.tool.tier ?? 'none') : 'unknown';
        question ??= { kind: 'tool_approval', callId, tool: call.name, args: c.args, tier, reason: c.reason };
      }
    }
    if (question) {
      const answer = interrupt<ApprovalQuestion, unknown>(question);
      // A resume value is matched to this interrupt by position, not by call; if the first open
      // question changed between runs, the answer is for another call: ignore it and ask again.
      const verdict = verdictFor(answer, question.callId);
      if (verdict) verdicts[question.callId] = verdict;
    }
    return { verdicts };
  };
}

/** The verdict a resume value gives `callId`; undefined when the answer is for another call. */
export function verdictFor(answer: unknown, callId: string): Verdict | undefined {
  const a = (typeof answer === 'object' && answer !== null ? answer : {}) as Partial<GateAnswer>;
  if (a.callId !== undefined && a.callId !== callId) return undefined;
  const by = typeof a.by === 'string' ? { by: a.by } : {};
  if (a.decision === 'once' || a.decision === 'always') return { action: 'run', via: 'approval', ...by };
  const reason = typeof a.reason === 'string' ? a.reason : a.decision === 'deny' ? undefined : 'the answer could not be read';
  return { action: 'deny', ...by, ...(reason !== undefined && { reason }) };
}
