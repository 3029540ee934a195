// The graph on its own (real model client, real checkpointer, real journal): resuming twice, and
// replaying the tools step from an older checkpoint, never runs a side-effecting tool twice.
import { HumanMessage, ToolMessage } from '@langchain/core/messages';
import { Command, INTERRUPT, isUnknownInterruptError, type Interrupt } from '@langchain/langgraph';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { ModelChains } from '../../src/core/agent/model/chain-provider.ts';
import { createCheckpointer, type Checkpointer } from '../../src/core/agent/checkpoint/checkpointer.ts';
import type { GateAnswer } from '../../src/core/agent/graph/gate-node.ts';
import { buildAgentGraph, type AgentGraph } from '../../src/core/agent/graph/graph.ts';
import type { AgentStateValue } from '../../src/core/agent/graph/state.ts';
import type { ApprovalQuestion } from '../../src/core/approvals/port.ts';
import { EffectJournal } from '../../src/core/effects/journal.ts';
import { defineTool } from '../../src/core/tools/define.ts';
import { ToolRegistry } from '../../src/core/tools/registry.ts';
import { startFakeLlm, type FakeLlm } from '../fakes/llm-server.ts';
import { freshDatabase, type FreshDatabase } from '../helpers/databases.ts';
import { fakeSettings } from './model/settings.ts';

let llm: FakeLlm;
let database: FreshDatabase;
let checkpointer: Checkpointer;
let graph: AgentGraph;
const runs: string[] = [];

beforeAll(async () => {
  llm = await startFakeLlm();
  database = await freshDatabase('pglite');
  checkpointer = await createCheckpointer(database);
  const registry = new ToolRegistry().register(
    defineTool({
      name: 'launch',
      description: 'Launches a thing.',
      tier: 'write',
      effects: true,
      input: z.object({ what: z.string() }),
      run: async ({ what }) => {
        runs.push(what);
        return `launched ${what} (#${runs.length})`;
      },
    }),
  );
  graph = buildAgentGraph({
    chains: new ModelChains({ settings: fakeSettings(llm.baseURL, { max_retries: 0 }), registry }),
    systemPrompt: () => 'test',
    registry,
    isGranted: async () => false,
    toolContext: () => ({ workspace: '/nonexistent', env: {} }),
    journal: new EffectJournal(database.db),
    checkpointer: checkpointer.saver,
  });
});
afterAll(async () => {
  await checkpointer.close();
  await database.dispose();
  await llm.close();
});

const cfg = (thread_id: string, extra: Record<string, unknown> = {}) => ({
  configurable: { thread_id, ...extra },
  durability: 'sync' as const,
});

async function askAndApprove(thread: string) {
  llm.script({ toolCalls: [{ name: 'launch', args: { what: thread } }] });
  const paused = (await graph.invoke({ messages: [new HumanMessage('launch it')] }, cfg(thread))) as {
    [INTERRUPT]?: Interrupt<ApprovalQuestion>[];
  };
  const question = paused[INTERRUPT]![0]!;
  expect(question.value).toMatchObject({
    kind: 'tool_approval',
    tool: 'launch',
    tier: 'write',
    reason: '"launch" is a write tool and needs approval',
  });
  const answer: GateAnswer = { callId: question.value!.callId, decision: 'once' };
  const resume: Parameters<AgentGraph['invoke']>[0] = new Command({ resume: { [question.id!]: answer } });
  const done = await graph.invoke(resume, cfg(thread));
  return { resume, done };
}

describe('agent graph', () => {
  it('a second resume with the same decision runs nothing', async () => {
    const { resume, done } = await askAndApprove('twice');
    expect(runs.filter((r) => r === 'twice')).toHaveLength(1);
    expect(done.messages.at(-1)?.content).toBe('done: launched twice (#1)');
    const requests = llm.requests.length;

    const again = await graph.invoke(resume, cfg('twice'));
    expect(again.messages).toHaveLength(done.messages.length);
    // Strict, as the turn runner resumes: the spent id is refused instead of silently ignored.
    const strict = await graph.invoke(resume, cfg('twice', { __pregel_strict_resume: true })).catch((e: unknown) => e);
    expect(isUnknownInterruptError(strict)).toBe(true);
    expect(runs.filter((r) => r === 'twice')).toHaveLength(1);
    expect(llm.requests).toHaveLength(requests);
  });

  it('replaying the tools step from an older checkpoint replays the recorded result with zero runs', async () => {
    await askAndApprove('replay');
    expect(runs.filter((r) => r === 'replay')).toHaveLength(1);
    let beforeTools: { configurable?: Record<string, unknown> } | undefined;
    for await (const snapshot of graph.getStateHistory(cfg('replay'))) {
      if (snapshot.next.includes('tools')) beforeTools = snapshot.config;
    }
    expect(beforeTools?.configurable?.checkpoint_id).toBeTruthy();
    const forked = (await graph.invoke(null, {
      configurable: { ...beforeTools!.configurable },
      durability: 'sync',
    })) as AgentStateValue;
    const results = forked.messages.filter((m) => ToolMessage.isInstance(m)).map((m) => m.content);
    expect(results).toEqual(['launched replay (#2)']);
    expect(runs.filter((r) => r === 'replay')).toHaveLength(1);
  });
});
