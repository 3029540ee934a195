import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { RefusedBeforeEffect } from '../../src/core/effects/refused.ts';
import { defineTool, ToolDefinitionError } from '../../src/core/tools/define.ts';
import { DuplicateToolError, ToolRegistry } from '../../src/core/tools/registry.ts';
import { makeWorkspace } from './fixture.ts';

const calls: string[] = [];
const echo = (name: string, tier?: 'safe' | 'write' | 'danger') =>
  defineTool({
    name,
    tier,
    description: `echo (${tier ?? 'no tier'})`,
    effects: tier !== 'safe',
    input: z.object({ text: z.string(), times: z.number().int().min(1).default(1) }),
    precheck({ text }) {
      if (text === 'forbidden') throw new RefusedBeforeEffect('the word "forbidden" is refused');
    },
    async run({ text, times }) {
      calls.push(name);
      if (text === 'boom') throw new Error('exploded');
      if (text === 'late-refusal') throw new RefusedBeforeEffect('changed its mind');
      if (text === 'object') return { text, times };
      return text.repeat(times);
    },
  });

let ws: Awaited<ReturnType<typeof makeWorkspace>>;
const registry = new ToolRegistry({ disabled: ['off'] });
beforeAll(async () => {
  ws = await makeWorkspace();
  registry.register(echo('safe_echo', 'safe')).register(echo('write_echo', 'write'));
  registry.register(echo('danger_echo', 'danger')).register(echo('plain_echo')).register(echo('off', 'safe'));
});
afterAll(() => ws.cleanup());

describe('ToolRegistry.classify', () => {
  it('runs a safe tool with validated args (defaults applied)', async () => {
    const c = await registry.classify('safe_echo', { text: 'hi' }, ws.ctx);
    expect(c).toMatchObject({ kind: 'run', args: { text: 'hi', times: 1 } });
  });

  it.each(['write_echo', 'danger_echo'])('asks before %s', async (name) => {
    const c = await registry.classify(name, { text: 'hi' }, ws.ctx);
    expect(c.kind).toBe('ask');
    expect(c.kind === 'ask' && c.reason).toMatch(/needs approval/);
  });

  it('asks before a tool without a tier', async () => {
    const c = await registry.classify('plain_echo', { text: 'hi' }, ws.ctx);
    expect(c).toMatchObject({ kind: 'ask', reason: expect.stringMatching(/no tier/) });
  });

  it('asks before a name it does not know, and never attaches a tool', async () => {
    const c = await registry.classify('mystery', { a: 1 }, ws.ctx);
    expect(c).toEqual({ kind: 'ask', args: { a: 1 }, reason: expect.stringMatching(/not a known tool/) });
  });

  it('a disabled tool is not listed, not described, refused as off (no card asks a person), not executable', async () => {
    expect(registry.list().map((t) => t.name)).not.toContain('off');
    expect(registry.list({ includeDisabled: true }).map((t) => t.name)).toContain('off');
    expect(registry.toolSpecs().map((s) => s.function.name)).not.toContain('off');
    expect(await registry.classify('off', { text: 'x' }, ws.ctx)).toEqual({
      kind: 'refuse',
      reason: '"off" is switched off here (an operator turned it off with /config tools toggle); do not call it',
    });
    expect(await registry.execute('off', { text: 'x' }, ws.ctx)).toEqual({ ok: false, error: 'unknown tool off' });
  });

  it('reports invalid args with the field path and reason', async () => {
    const c = await registry.classify('safe_echo', { text: 3, times: 0 }, ws.ctx);
    expect(c.kind).toBe('invalid');
    const error = c.kind === 'invalid' ? c.error : '';
    expect(error).toMatch(/safe_echo/);
    expect(error).toMatch(/text: .*expected string/);
    expect(error).toMatch(/times: .*>=1/);
  });

  it('accepts JSON text args and rejects broken JSON clearly', async () => {
    expect(await registry.classify('safe_echo', '{"text":"j"}', ws.ctx)).toMatchObject({
      kind: 'run',
      args: { text: 'j' },
    });
    const c = await registry.classify('safe_echo', '{"text":', ws.ctx);
    expect(c).toMatchObject({ kind: 'invalid', error: expect.stringMatching(/not valid JSON/) });
  });

  it('refuses in precheck before asking, even for a danger tool', async () => {
    const c = await registry.classify('danger_echo', { text: 'forbidden' }, ws.ctx);
    expect(c).toEqual({ kind: 'refuse', reason: 'the word "forbidden" is refused' });
  });
});

describe('ToolRegistry.execute', () => {
  it('runs the tool and returns string output', async () => {
    expect(await registry.execute('danger_echo', { text: 'ab', times: 2 }, ws.ctx)).toEqual({
      ok: true,
      output: 'abab',
    });
  });

  it('JSON-encodes non-string output', async () => {
    expect(await registry.execute('safe_echo', { text: 'object' }, ws.ctx)).toEqual({
      ok: true,
      output: '{"text":"object","times":1}',
    });
  });

  it('returns an error result for an unknown tool instead of throwing', async () => {
    expect(await registry.execute('nope', {}, ws.ctx)).toEqual({ ok: false, error: 'unknown tool nope' });
  });

  it('re-validates and re-prechecks: an approved call is still refused and never runs', async () => {
    calls.length = 0;
    expect(await registry.execute('danger_echo', { text: 'forbidden' }, ws.ctx)).toMatchObject({
      ok: false,
      refused: true,
    });
    expect((await registry.execute('danger_echo', { text: 1 }, ws.ctx)).ok).toBe(false);
    expect(calls).toEqual([]);
  });

  it('turns a RefusedBeforeEffect thrown by run into a refused result, and other errors into a failure', async () => {
    expect(await registry.execute('safe_echo', { text: 'late-refusal' }, ws.ctx)).toEqual({
      ok: false,
      error: 'refused: changed its mind',
      refused: true,
    });
    expect(await registry.execute('safe_echo', { text: 'boom' }, ws.ctx)).toEqual({
      ok: false,
      error: 'tool "safe_echo" failed: exploded',
    });
  });

  it('masks configured secrets in the output', async () => {
    const r = await registry.execute(
      'safe_echo',
      { text: 'key=sk-live-123456' },
      { ...ws.ctx, secrets: ['sk-live-123456'] },
    );
    expect(r).toEqual({ ok: true, output: 'key=•••' });
  });
});

describe('registration and specs', () => {
  it('rejects duplicate names and invalid names', () => {
    expect(() => registry.register(echo('safe_echo', 'safe'))).toThrow(DuplicateToolError);
    expect(() => echo('bad name!')).toThrow(ToolDefinitionError);
  });

  it('describes tools as JSON schema for bindTools, defaults optional', () => {
    const spec = registry.toolSpecs().find((s) => s.function.name === 'safe_echo');
    expect(spec?.type).toBe('function');
    expect(spec?.function.parameters).toMatchObject({
      type: 'object',
      properties: { text: { type: 'string' }, times: { type: 'integer', default: 1 } },
      required: ['text'],
    });
    expect(spec?.function.parameters).not.toHaveProperty('$schema');
  });

  it('setDisabled toggles a tool at run time', () => {
    registry.setDisabled('plain_echo', true);
    expect(registry.get('plain_echo')).toBeUndefined();
    registry.setDisabled('plain_echo', false);
    expect(registry.get('plain_echo')?.name).toBe('plain_echo');
  });
});
