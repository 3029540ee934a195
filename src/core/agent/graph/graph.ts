import { AIMessage } from '@langchain/core/messages';
import { type BaseCheckpointSaver, END, START, StateGraph } from '@langchain/langgraph';
import { gateNode, type GateNodeDeps } from './gate-node.ts';
import { modelNode, type ModelNodeDeps } from './model-node.ts';
import { AgentState, callIdOf, pendingToolMessage, type AgentStateValue } from './state.ts';
import { toolsNode, type ToolsNodeDeps } from './tools-node.ts';

/** Everything the agent graph needs; each node takes its part. */
export interface AgentGraphDeps extends ModelNodeDeps, GateNodeDeps, ToolsNodeDeps {
  checkpointer: BaseCheckpointSaver;
}

/** model → END when the reply asks for no tools; else → gate. */
function afterModel(state: AgentStateValue): 'gate' | typeof END {
  return pendingToolMessage(state.messages) ? 'gate' : END;
}

/** gate → gate until every call has a verdict (one question per gate run); then → tools. */
function afterGate(state: AgentStateValue): 'gate' | 'tools' {
  const pending = pendingToolMessage(state.messages);
  if (!pending) return 'tools';
  const open = pending.message.tool_calls!.some((call, i) => !state.verdicts[callIdOf(call, i)]);
  return open ? 'gate' : 'tools';
}

/** tools → model with the results; → END when the tools node ended the turn with a ⚠️ AI message. */
function afterTools(state: AgentStateValue): 'model' | typeof END {
  const last = state.messages.at(-1);
  return last && AIMessage.isInstance(last) ? END : 'model';
}

/**
 * The agent: START → model → gate (⟲ one approval question per run) → tools → model … → END, over a
 * durable checkpointer. Interrupts happen only in `gate`, which runs no tool; tools run only in
 * `tools`, which raises no interrupt. So resuming never repeats a tool.
 *
 * @example
 * const graph = buildAgentGraph({ chains, systemPrompt, registry, isGranted, toolContext, journal, checkpointer });
 * await graph.invoke({ messages: [new HumanMessage('hi')] }, { configurable: { thread_id } });
 */
export function buildAgentGraph(deps: AgentGraphDeps) {
  return new StateGraph(AgentState)
    .addNode('model', modelNode(deps))
    .addNode('gate', gateNode(deps))
    .addNode('tools', toolsNode(deps))
    .addEdge(START, 'model')
    .addConditionalEdges('model', afterModel, ['gate', END])
    .addConditionalEdges('gate', afterGate, ['gate', 'tools'])
    .addConditionalEdges('tools', afterTools, ['model', END])
    .compile({ checkpointer: deps.checkpointer });
}

/** The compiled agent graph. */
export type AgentGraph = ReturnType<typeof buildAgentGraph>;
