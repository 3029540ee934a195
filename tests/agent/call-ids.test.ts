// Kazma's own tool-call ids: what the provider clients will send back, and what happens to a message
// checkpointed before the rule (ids that collide are refused outright, never run).
import { AIMessage, HumanMessage } from '@langchain/core/messages';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { hasDistinctCallIds, withOwnCallIds } from '../../src/core/agent/graph/call-ids.ts';
import { gateNode } from '../../src/core/agent/graph/gate-node.ts';
import type { AgentStateValue } from '../../src/core/agent/graph/state.ts';
import { defineTool } from '../../src/core/tools/define.ts';
import { ToolRegistry } from '../../src/core/tools/registry.ts';

describe('withOwnCallIds', () => {
  it('renames every call, keeps names and arguments, and drops the provider copies of the ids', () => {
    const message = new AIMessage({
      content: [
        { type: 'text', text: 'reading, then running' },
        { type: 'tool_use', id: 'x1', name: 'read_file', input: { path: 'a' } },
        { type: 'tool_use', id: 'x1', name: 'shell', input: { command: 'ls' } },
      ],
      tool_calls: [
        { id: 'x1', name: 'read_file', args: { path: 'a' }, type: 'tool_call' },
        { id: 'x1', name: 'shell', args: { command: 'ls' }, type: 'tool_call' },
      ],
      additional_kwargs: {
        tool_calls: [{ id: 'x1', type: 'function', function: { name: 'read_file', arguments: '{}' } }],
        other: 1,
      },
    });
    const own = withOwnCallIds(message);
    const ids = own.tool_calls!.map((c) => c.id!);
    expect(ids[0]).toMatch(/^kz[0-9a-f]{12}_0$/);
    expect(ids[1]).toBe(ids[0]!.replace(/_0$/, '_1'));
    expect(own.tool_calls!.map((c) => [c.name, c.args])).toEqual([
      ['read_file', { path: 'a' }],
      ['shell', { command: 'ls' }],
    ]);
    expect(own.additional_kwargs).toEqual({ other: 1 });
    expect(own.content).toEqual([{ type: 'text', text: 'reading, then running' }]);
    // Two messages never share a prefix.
    expect(withOwnCallIds(message).tool_calls![0]!.id).not.toBe(ids[0]);
  });

  it('leaves a message without tool calls as it is', () => {
    const plain = new AIMessage('hello');
    expect(withOwnCallIds(plain)).toBe(plain);
  });

  it('hasDistinctCallIds: false for shared, empty or missing ids', () => {
    const call = (id: string | undefined) => ({ id, name: 't', args: {} });
    expect(hasDistinctCallIds([call('a'), call('b')])).toBe(true);
    expect(hasDistinctCallIds([call('a'), call('a')])).toBe(false);
    expect(hasDistinctCallIds([call(''), call('b')])).toBe(false);
    expect(hasDistinctCallIds([call(undefined), call('b')])).toBe(false);
  });
});

describe('a checkpointed message whose ids collide', () => {
  it('gets a refusal for every call and no question', async () => {
    const registry = new ToolRegistry()
      .register(
        defineTool({
          name: 'look',
          description: 'd',
          tier: 'safe',
          effects: false,
          input: z.object({}),
          run: async () => 'ok',
        }),
      )
      .register(
        defineTool({
          name: 'act',
          description: 'd',
          tier: 'danger',
          effects: true,
          input: z.object({}),
          run: async () => 'ok',
        }),
      );
    const node = gateNode({
      registry,
      isGranted: async () => false,
      toolContext: () => ({ workspace: '/x', env: {} }),
    });
    const state = {
      messages: [
        new HumanMessage('go'),
        new AIMessage({
          content: '',
          tool_calls: [
            { id: 'x1', name: 'look', args: {} },
            { id: 'x1', name: 'act', args: {} },
          ],
        }),
      ],
      verdicts: {},
      turn: null,
      answeredBy: null,
    } as unknown as AgentStateValue;
    const update = await node(state, {});
    expect(update.verdicts).toEqual({
      x1: { action: 'refuse', reason: expect.stringContaining('did not each have their own id') },
    });
  });
});
