import { interrupt, type LangGraphRunnableConfig } from '@langchain/langgraph';
import type { ApprovalQuestion } from '../../approvals/index.ts';
import type { Decision } from '../../db/index.ts';
import { hasDistinctCallIds } from './call-ids.ts';
import type { ToolContext, ToolRegistry } from '../../tools/index.ts';
import {
  callIdOf,
  pendingToolMessage,
  toolTurn,
  type AgentStateUpdate,
  type AgentStateValue,
  type Verdict,
} from './state.ts';

/** What the `gate` node needs. */
export interface GateNodeDeps {
  registry: ToolRegistry;
  /** An earlier "always" covers this call (ApprovalBroker.isGranted). */
  isGranted: (call: { chat: string; tool: string; args: unknown; tier?: string }) => Promise<boolean>;
  toolContext: (signal?: AbortSignal) => ToolContext;
  /**
   * Whether anyone can be asked about a call made in `chat` (a chatless run — `thread:<id>` — can be
   * asked only in approvals.channels). Default: always.
   */
  canAsk?: (chat: string) => boolean;
}

/** The reason a call that needs approval is denied when no chat can show its question. */
export const NOWHERE_TO_ASK =
  'nobody could be asked: this work has no chat and approvals.channels is empty, so a call that needs approval ' +
  'is denied';

/** The resume value the runner sends: the decision plus the call it answers. */
export interface GateAnswer {
  callId: string;
  decision: Decision;
  by?: string;
  reason?: string;
  /** The rewrite the decided card showed (none: the arguments as sent): what an approval lets run. */
  rewritten?: Record<string, unknown>;
}

/**
 * The `gate` node: classifies each tool call of the latest model message and records a verdict.
 * It raises AT MOST ONE interrupt per run (for the first call that needs a person and has no
 * decision yet) and runs no tool, so re-running it from the top on resume is harmless: classify and
 * its guards change nothing. The conditional edge brings the graph back here until every call has a
 * verdict, each question in its own run with its own interrupt id.
 */
export function gateNode(deps: GateNodeDeps) {
  return async (state: AgentStateValue, config: LangGraphRunnableConfig): Promise<AgentStateUpdate> => {
    const pending = pendingToolMessage(state.messages);
    if (!pending) return {};
    const calls = pending.message.tool_calls!;
    if (!hasDistinctCallIds(calls)) {
      // Keys would collide: a decision for one call would also answer another. Refuse them all.
      const reason =
        'the tool calls of this message did not each have their own id, so none of them ran; call the tools again';
      return {
        verdicts: Object.fromEntries(calls.map((call, i) => [callIdOf(call, i), { action: 'refuse', reason }])),
      };
    }
    const verdicts: Record<string, Verdict> = { ...state.verdicts };
    // The precheck sees the turn as the run will (who asked, where): a tool may refuse by it before any card.
    const ctx = { ...deps.toolContext(), ...toolTurn(state, config) };
    let question: ApprovalQuestion | undefined;
    for (const [position, call] of calls.entries()) {
      const callId = callIdOf(call, position);
      if (verdicts[callId]) continue;
      const c = await deps.registry.classify(call.name, call.args, ctx);
      if (c.kind === 'run') verdicts[callId] = { action: 'run', via: 'tier' };
      else if (c.kind === 'refuse') verdicts[callId] = { action: 'refuse', reason: c.reason };
      else if (c.kind === 'invalid') verdicts[callId] = { action: 'invalid', error: c.error };
      // The card shows, and a grant matches, the arguments the model sent — not their parsed form with
      // defaults filled in, which the person did not see the model ask for.
      else if (
        state.turn &&
        (await deps.isGranted({ chat: state.turn.chat, tool: call.name, args: call.args, tier: tierOf(c.tool) }))
      ) {
        verdicts[callId] = { action: 'run', via: 'grant' };
      } else if (state.turn && deps.canAsk && !deps.canAsk(state.turn.chat)) {
        verdicts[callId] = { action: 'deny', reason: NOWHERE_TO_ASK };
      } else {
        const tier = tierOf(c.tool);
        const rewritten = c.kind === 'ask' && c.rewritten ? { rewritten: c.rewritten } : {};
        question ??= {
          kind: 'tool_approval',
          callId,
          tool: call.name,
          args: call.args,
          tier,
          reason: c.reason,
          ...rewritten,
        };
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
  if (a.decision === 'once' || a.decision === 'always') {
    const approved = { rewritten: typeof a.rewritten === 'object' && a.rewritten !== null ? a.rewritten : null };
    return { action: 'run', via: 'approval', ...by, approved };
  }
  const reason =
    typeof a.reason === 'string' ? a.reason : a.decision === 'deny' ? undefined : 'the answer could not be read';
  return { action: 'deny', ...by, ...(reason !== undefined && { reason }) };
}

/** A call's tier as a card and a policy read it: `none` for a registered tool without one, `unknown` for none. */
function tierOf(tool: { tier?: string } | undefined): string {
  return tool ? (tool.tier ?? 'none') : 'unknown';
}
