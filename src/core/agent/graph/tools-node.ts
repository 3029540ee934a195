import { ToolMessage, type BaseMessage } from '@langchain/core/messages';
import type { LangGraphRunnableConfig } from '@langchain/langgraph';
import { liveReplyOf } from '../../streaming/index.ts';
import type { EffectReceipt } from '../../db/index.ts';
import { effectUnknownMessage, runWithJournal, type EffectJournal, type JournalOutcome } from '../../effects/index.ts';
import type { Meter, ToolOutcome } from '../../metrics/index.ts';
import type { ToolContext, ToolRegistry } from '../../tools/index.ts';
import { hasDistinctCallIds } from './call-ids.ts';
import { noticeMessage } from '../runner/transcript.ts';
import {
  toolTurn,
  callIdOf,
  journalCallId,
  pendingToolMessage,
  type AgentStateUpdate,
  type AgentStateValue,
  type Verdict,
} from './state.ts';

/** A call's answer when its turn was stopped before it began (it is not run). */
const STOPPED_BEFORE = 'not run: the turn was stopped before this call began';

/** What the `tools` node needs. */
export interface ToolsNodeDeps {
  registry: ToolRegistry;
  journal: EffectJournal;
  toolContext: (signal?: AbortSignal) => ToolContext;
  /** Told as each tool call begins and ends (the run supervisor's progress stamp). */
  progress?: (threadId: string) => void;
  /** Counts each call by tool and outcome; absent: not counted. */
  meter?: Pick<Meter, 'toolCall' | 'tracing'>;
}

/**
 * The `tools` node: runs the calls the gate let through and answers every call with a ToolMessage
 * (refusals, invalid arguments and denials tell the model why). It raises no interrupt, so it is
 * re-run only after a crash; side-effecting tools go through the effect journal, so a re-run replays
 * a finished call and never repeats a started one. When a call's effect is unknown the turn stops
 * with the honest ⚠️ text as an AI message (the edge then goes to END, never back to the model).
 */
export function toolsNode(deps: ToolsNodeDeps) {
  return async (state: AgentStateValue, config: LangGraphRunnableConfig): Promise<AgentStateUpdate> => {
    const pending = pendingToolMessage(state.messages);
    if (!pending) return {};
    const threadId = String(config.configurable?.thread_id ?? '');
    const ctx = { ...deps.toolContext(config.signal), ...toolTurn(state, config) };
    const out: BaseMessage[] = [];
    let unknown: { receipt: EffectReceipt; callId: string } | undefined;
    // Belt and braces with the gate: with ids that collide, no verdict can be trusted to be this call's.
    const distinct = hasDistinctCallIds(pending.message.tool_calls!);
    for (const [position, call] of pending.message.tool_calls!.entries()) {
      const callId = callIdOf(call, position);
      // A name the model made up is not a label: only registered tools get a series of their own.
      const tool = deps.registry.get(call.name) ? call.name : 'unknown';
      const count = (outcome: ToolOutcome) => deps.meter?.toolCall({ tool, outcome });
      const answer = (content: string, ok = false) =>
        out.push(new ToolMessage({ tool_call_id: callId, name: call.name, content, status: ok ? 'success' : 'error' }));
      if (unknown) {
        answer("not run: the turn stopped because an earlier call's effect is unknown");
        continue;
      }
      // Stopped (`/stop`, a shutdown) while an earlier call ran: a call not yet begun does not begin.
      if (config.signal?.aborted) {
        answer(STOPPED_BEFORE);
        continue;
      }
      const verdict: Verdict | undefined = distinct
        ? state.verdicts[callId]
        : { action: 'refuse', reason: 'the tool calls of this message did not each have their own id' };
      if (!verdict) {
        count('refused');
        answer('not run: no decision was recorded for this call');
      } else if (verdict.action === 'refuse') {
        count('refused');
        answer(`refused before any effect: ${verdict.reason}`);
      } else if (verdict.action === 'invalid') {
        count('invalid');
        answer(verdict.error);
      } else if (verdict.action === 'deny') {
        count('denied');
        answer(
          `denied${verdict.by ? ` by ${verdict.by}` : ''}${verdict.reason ? `: ${verdict.reason}` : ''}. The call ` +
            `did not run; do not retry it unchanged.`,
        );
      } else {
        deps.progress?.(threadId);
        // The chat's live message says what runs now (core/streaming), until the model writes again.
        liveReplyOf(config)?.progress({ tool: call.name, args: call.args });
        const prepared = deps.registry.prepare(call.name, call.args, ctx, verdict.approved);
        const run = () =>
          runWithJournal({
            journal: deps.journal,
            key: { threadId, callId: journalCallId(pending, callId) },
            ...(state.turn && { turnId: state.turn.id }),
            tool: call.name,
            args: call.args,
            // A tool that is gone (disabled, removed) is assumed to have effects: the journal is the safe side.
            effects: deps.registry.get(call.name)?.effects ?? true,
            // The guards run again here, after any approval and before the receipt: a call refused now
            // has no effect and leaves no receipt, and the model is told why. So does a stop that came meanwhile.
            run: prepared.run,
            guard: async () =>
              config.signal?.aborted ? { ok: false, error: STOPPED_BEFORE, refused: true } : prepared.guard(),
          });
        const traced = { name: tool, id: callId, args: call.args };
        const outcome = deps.meter
          ? await deps.meter.tracing.tool(traced, async () => {
              const ran = await run();
              return { value: ran, outcome: ran.status === 'replayed' ? 'replayed' : toolOutcome(ran) };
            })
          : await run();
        deps.progress?.(threadId);
        // A replayed call ran before a crash (and was counted, if at all, by the process that ran it).
        if (outcome.status !== 'replayed') count(toolOutcome(outcome));
        if (outcome.status === 'unknown') {
          unknown = { receipt: outcome.receipt, callId };
          answer('effect unknown: this call started earlier but never finished, and was not run again');
        } else if (outcome.result.ok) {
          answer(outcome.result.output === '' ? '(no output)' : outcome.result.output, true);
        } else {
          answer(outcome.result.error);
        }
      }
    }
    // Kazma's own words, not the model's: a notice, so the model is never sent them as its own.
    if (unknown) out.push(noticeMessage(effectUnknownMessage(unknown.receipt), `effect-unknown-${unknown.callId}`));
    return { messages: out };
  };
}

/** A journal outcome as a tool-call figure: refused by the guards, an effect unknown, or the tool's own ok/error. */
function toolOutcome(outcome: Exclude<JournalOutcome, { status: 'replayed' }>): ToolOutcome {
  if (outcome.status === 'unknown') return 'unknown';
  if (outcome.status === 'refused') return 'refused';
  return outcome.result.ok ? 'ok' : 'error';
}
