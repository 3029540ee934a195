// Class check for the approval gate: tool-call ids come from the model, so a model (steered by injected
// text) chooses them. For every pairing of a tool that runs freely and a tool that needs a person, under
// every id trick we know of (shared, empty, missing, colliding with Kazma's own stand-ins, reused from an
// earlier message), a gated call must never run without a decision. Every question is denied here, so
// any run of a gated tool is a bypass. The tools are the built-ins as registered (tiers read from the
// source), with their runs recorded instead of performed and their prechecks removed: this tests the gate,
// not the policies that might refuse a call first.
import { HumanMessage } from '@langchain/core/messages';
import { Command, INTERRUPT, type Interrupt } from '@langchain/langgraph';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ModelChains } from '../../src/core/agent/model/chain-provider.ts';
import { createCheckpointer, type Checkpointer } from '../../src/core/agent/checkpoint/checkpointer.ts';
import type { GateAnswer } from '../../src/core/agent/graph/gate-node.ts';
import { buildAgentGraph, type AgentGraph } from '../../src/core/agent/graph/graph.ts';
import type { ApprovalQuestion } from '../../src/core/approvals/port.ts';
import { EffectJournal } from '../../src/core/effects/journal.ts';
import { builtinTools } from '../../src/core/tools/builtin/index.ts';
import type { ToolDefinition } from '../../src/core/tools/define.ts';
import { ToolRegistry } from '../../src/core/tools/registry.ts';
import { startFakeLlm, type FakeLlm, type FakeToolCall } from '../fakes/llm-server.ts';
import { freshDatabase, type FreshDatabase } from '../helpers/databases.ts';
import { fakeSettings } from './model/settings.ts';

/** Valid arguments for each built-in; a new built-in without an entry fails the test below. */
const SAMPLE_ARGS: Record<string, Record<string, unknown>> = {
  current_time: {},
  list_files: { path: '.' },
  read_file: { path: 'notes.md' },
  write_file: { path: 'notes.md', content: 'pwned' },
  shell: { command: 'ls' },
};

const builtins = builtinTools();
const free = builtins.filter((t) => t.tier === 'safe').map((t) => t.name);
const gated = builtins.filter((t) => t.tier !== 'safe').map((t) => t.name);

/** Id tricks: each returns the ids of [first call, second call] (null = the call carries no id). */
const ID_SCHEMES: Record<string, (n: number) => [string | null, string | null]> = {
  shared: () => ['x1', 'x1'],
  'both empty': () => ['', ''],
  'both missing': () => [null, null],
  'empty then missing': () => ['', null],
  // A stand-in an id-less call might get from its position, claimed outright by the other call.
  'collides with a positional stand-in (first)': () => ['call_1', null],
  'collides with a positional stand-in (second)': () => [null, 'call_0'],
  'collides with a positional stand-in (empty)': () => ['call_1', ''],
  'reused from the previous message': (n) => [`prev_${n}`, `prev_${n}`],
};

let llm: FakeLlm;
let database: FreshDatabase;
let checkpointer: Checkpointer;
let graph: AgentGraph;
const ran: string[] = [];

function recorded(tool: ToolDefinition): ToolDefinition {
  // No precheck: a policy refusal must not hide a gate bypass.
  const { precheck: _precheck, ...rest } = tool;
  return {
    ...rest,
    run: async () => {
      ran.push(tool.name);
      return `${tool.name} ran`;
    },
  };
}

beforeAll(async () => {
  llm = await startFakeLlm();
  database = await freshDatabase('pglite');
  checkpointer = await createCheckpointer(database);
  const registry = new ToolRegistry();
  for (const tool of builtins) registry.register(recorded(tool));
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

const cfg = (thread_id: string) => ({
  configurable: { thread_id, __pregel_strict_resume: true },
  durability: 'sync' as const,
});

type Paused = { [INTERRUPT]?: Interrupt<ApprovalQuestion>[] };

/** Runs one turn, denying every question; returns the tools each question asked about. */
async function turnDenyingEverything(thread: string, text: string): Promise<string[]> {
  const asked: string[] = [];
  let result = (await graph.invoke({ messages: [new HumanMessage(text)] }, cfg(thread))) as Paused;
  for (let guard = 0; result[INTERRUPT]?.length; guard++) {
    if (guard > 10) throw new Error('the graph kept asking');
    const question = result[INTERRUPT][0]!;
    asked.push(question.value!.tool);
    const answer: GateAnswer = { callId: question.value!.callId, decision: 'deny', reason: 'test denies everything' };
    result = (await graph.invoke(new Command({ resume: { [question.id!]: answer } }), cfg(thread))) as Paused;
  }
  return asked;
}

describe('tool-call ids cannot open the gate', () => {
  it('every built-in has sample arguments, and there is at least one free and one gated tool', () => {
    expect(builtins.map((t) => t.name).filter((name) => !(name in SAMPLE_ARGS))).toEqual([]);
    expect(free.length).toBeGreaterThan(0);
    expect(gated.length).toBeGreaterThan(0);
  });

  let n = 0;
  for (const [scheme, ids] of Object.entries(ID_SCHEMES)) {
    for (const freeTool of free) {
      for (const gatedTool of gated) {
        for (const order of ['free first', 'gated first'] as const) {
          it(`${scheme}: ${freeTool} + ${gatedTool}, ${order}`, async () => {
            const thread = `ids-${++n}`;
            const [a, b] = ids(n);
            const names = order === 'free first' ? [freeTool, gatedTool] : [gatedTool, freeTool];
            const call = (name: string, id: string | null): FakeToolCall => ({ name, args: SAMPLE_ARGS[name]!, id });
            if (scheme === 'reused from the previous message') {
              // An earlier message used the same id for a free call that ran.
              llm.script({ toolCalls: [call(freeTool, a)] }, { text: 'ok' });
              await turnDenyingEverything(thread, 'first');
            }
            ran.length = 0;
            llm.script({ toolCalls: [call(names[0]!, a), call(names[1]!, b)] });
            const asked = await turnDenyingEverything(thread, 'do both');
            // Every question was denied, so a gated tool that ran was never asked about.
            expect(
              ran.filter((name) => name === gatedTool),
              `${gatedTool} ran without a decision`,
            ).toEqual([]);
            expect(asked).toContain(gatedTool);
            // The model got an answer for each call, under ids that do not repeat.
            const request = llm.requests.at(-1)!.messages ?? [];
            const results = request
              .filter((m) => m.role === 'tool')
              .slice(-2)
              .map((m) => m.tool_call_id);
            expect(new Set(results).size).toBe(2);
          });
        }
      }
    }
  }
});
