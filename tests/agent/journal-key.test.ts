// The effect journal's key survives the context window: older turns leave the checkpoint and every
// position shifts, yet a re-run of a step replays its receipt, and a later call at the same position
// (with a reused call id) is a new call, never an old receipt.
import { AIMessage, HumanMessage, ToolMessage } from '@langchain/core/messages';
import { Command, INTERRUPT, type Interrupt } from '@langchain/langgraph';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { TranscriptArchive } from '../../src/core/agent/graph/archive.ts';
import { ModelChains } from '../../src/core/agent/model/chain-provider.ts';
import { createCheckpointer, type Checkpointer } from '../../src/core/agent/checkpoint/checkpointer.ts';
import type { GateAnswer } from '../../src/core/agent/graph/gate-node.ts';
import { buildAgentGraph, type AgentGraph } from '../../src/core/agent/graph/graph.ts';
import type { AgentStateValue } from '../../src/core/agent/graph/state.ts';
import { toolsNode } from '../../src/core/agent/graph/tools-node.ts';
import type { ApprovalQuestion } from '../../src/core/approvals/port.ts';
import { EffectJournal } from '../../src/core/effects/journal.ts';
import { defineTool } from '../../src/core/tools/define.ts';
import { ToolRegistry } from '../../src/core/tools/registry.ts';
import { startFakeLlm, type FakeLlm } from '../fakes/llm-server.ts';
import { BACKENDS, freshDatabase, type FreshDatabase } from '../helpers/databases.ts';
import { fakeSettings } from './model/settings.ts';

for (const backend of BACKENDS) {
  describe(`effect journal keys after the window moved (${backend})`, () => {
    let llm: FakeLlm;
    let database: FreshDatabase;
    let checkpointer: Checkpointer;
    let graph: AgentGraph;
    let registry: ToolRegistry;
    let journal: EffectJournal;
    const runs: string[] = [];

    beforeAll(async () => {
      llm = await startFakeLlm();
      database = await freshDatabase(backend);
      checkpointer = await createCheckpointer(database);
      registry = new ToolRegistry().register(
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
      journal = new EffectJournal(database.db);
      graph = buildAgentGraph({
        chains: new ModelChains({ settings: fakeSettings(llm.baseURL, { max_retries: 0 }), registry }),
        systemPrompt: () => 'test',
        registry,
        isGranted: async () => false,
        toolContext: () => ({ workspace: '/nonexistent', env: {} }),
        journal,
        checkpointer: checkpointer.saver,
        context: { maxTokens: 1_000, archive: new TranscriptArchive(database.db) },
      });
    });
    afterAll(async () => {
      await checkpointer.close();
      await database.dispose();
      await llm.close();
    });

    const cfg = (thread_id: string) => ({ configurable: { thread_id }, durability: 'sync' as const });

    it('a step re-run after older turns were archived replays its receipt: the effect ran once', async () => {
      const thread = 'long';
      for (let i = 0; i < 12; i++)
        await graph.invoke({ messages: [new HumanMessage(`chat ${i} ${'words '.repeat(40)}`)] }, cfg(thread));
      llm.script({ toolCalls: [{ name: 'launch', args: { what: 'rocket' } }] });
      const paused = (await graph.invoke({ messages: [new HumanMessage('launch it')] }, cfg(thread))) as {
        [INTERRUPT]?: Interrupt<ApprovalQuestion>[];
      };
      const question = paused[INTERRUPT]![0]!;
      const answer: GateAnswer = { callId: question.value!.callId, decision: 'once' };
      await graph.invoke(new Command({ resume: { [question.id!]: answer } }), cfg(thread));
      expect(runs).toEqual(['rocket']);
      // The window did move: the early turns are in the archive, not in the checkpoint.
      const archived = await new TranscriptArchive(database.db).read(thread);
      expect(archived[0]?.message.content).toMatch(/^chat 0 /);

      let beforeTools: { configurable?: Record<string, unknown> } | undefined;
      for await (const snapshot of graph.getStateHistory(cfg(thread)))
        if (snapshot.next.includes('tools')) beforeTools = snapshot.config;
      const forked = (await graph.invoke(null, {
        configurable: { ...beforeTools!.configurable },
        durability: 'sync',
      })) as AgentStateValue;
      expect(forked.messages.filter((m) => ToolMessage.isInstance(m)).map((m) => m.content)).toEqual([
        'launched rocket (#1)',
      ]);
      expect(runs).toEqual(['rocket']);
    });

    it('keys by the AI message, not its position: the same position and call id in a later message is a new call', async () => {
      const thread = 'shifted';
      const run = toolsNode({ registry, journal, toolContext: () => ({ workspace: '/nonexistent', env: {} }) });
      const state = (messageId: string, what: string): AgentStateValue => ({
        messages: [
          new HumanMessage({ content: 'go', id: `h-${messageId}` }),
          new AIMessage({ content: '', id: messageId, tool_calls: [{ id: 'call_1', name: 'launch', args: { what } }] }),
        ],
        verdicts: { call_1: { action: 'run', via: 'tier' } },
        turn: null,
        answeredBy: null,
        recalled: null,
      });
      const config = { configurable: { thread_id: thread } };
      const first = await run(state('ai-first', 'probe-1'), config);
      const again = await run(state('ai-first', 'probe-1'), config);
      expect(again.messages).toEqual(first.messages);
      // Older turns archived, a provider that reuses call ids: the next message sits where the first did.
      const later = await run(state('ai-later', 'probe-2'), config);
      expect((later.messages as ToolMessage[]).map((m) => m.content)).toEqual([`launched probe-2 (#${runs.length})`]);
      expect(runs.filter((r) => r.startsWith('probe'))).toEqual(['probe-1', 'probe-2']);
    });
  });
}
