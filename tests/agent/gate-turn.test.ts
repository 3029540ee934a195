// The gate classifies a call with the turn it belongs to, as the tools node runs it: a tool whose precheck
// depends on who asked (memory's tools refuse a call with no one who asked) is judged on the same facts
// before any card as at its run.
import { AIMessage, HumanMessage } from '@langchain/core/messages';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { gateNode } from '../../src/core/agent/graph/gate-node.ts';
import type { AgentStateValue } from '../../src/core/agent/graph/state.ts';
import { RefusedBeforeEffect } from '../../src/core/effects/index.ts';
import { defineTool, type ToolContext } from '../../src/core/tools/define.ts';
import { ToolRegistry } from '../../src/core/tools/registry.ts';

describe('the gate', () => {
  it('hands a precheck the turn: who asked, in which chat, on which thread', async () => {
    const seen: Array<ToolContext['turn']> = [];
    const registry = new ToolRegistry().register(
      defineTool({
        name: 'whose',
        description: 'needs a person',
        tier: 'safe',
        effects: false,
        outside: false,
        input: z.object({}),
        precheck: (_args, ctx) => {
          seen.push(ctx.turn);
          if (!ctx.turn) throw new RefusedBeforeEffect('no one asked');
        },
        run: async () => 'ok',
      }),
    );
    const node = gateNode({
      registry,
      isGranted: async () => false,
      toolContext: () => ({ workspace: '/x', env: {} }),
    });
    const requester = { platform: 'telegram', id: '42' };
    const state = {
      messages: [
        new HumanMessage('go'),
        new AIMessage({ content: '', tool_calls: [{ id: 'c1', name: 'whose', args: {} }] }),
      ],
      verdicts: {},
      turn: { id: 'turn-1', chat: 'telegram:42', requester },
      answeredBy: null,
      recalled: null,
    } as unknown as AgentStateValue;
    const update = await node(state, { configurable: { thread_id: 'telegram:42#1' } });
    expect(update.verdicts).toEqual({ c1: { action: 'run', via: 'tier' } });
    expect(seen).toEqual([{ chat: 'telegram:42', requester, threadId: 'telegram:42#1' }]);
  });
});
