import { existsSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { shellTool } from '../../src/core/tools/builtin/shell.ts';
import { ToolRegistry } from '../../src/core/tools/registry.ts';
import { makeWorkspace } from './fixture.ts';

let ws: Awaited<ReturnType<typeof makeWorkspace>>;
const registry = new ToolRegistry().register(shellTool({ timeoutMs: 1_000, maxOutputBytes: 64 }));
beforeAll(async () => {
  ws = await makeWorkspace();
  await writeFile(path.join(ws.dir, 'notes.txt'), 'alpha\nbeta\ngamma\n');
});
afterAll(() => ws.cleanup());

describe('shell tool', () => {
  it('is a danger tool: a valid command asks for approval', async () => {
    expect(await registry.classify('shell', { command: 'ls' }, ws.ctx)).toMatchObject({ kind: 'ask' });
  });

  it('refuses a bad command in classify, before any approval is asked', async () => {
    const c = await registry.classify('shell', { command: 'cat notes.txt | wc -l' }, ws.ctx);
    expect(c).toMatchObject({ kind: 'refuse', reason: expect.stringContaining('"|"') });
  });

  it('runs an allowed command in the workspace and returns its output', async () => {
    expect(await registry.execute('shell', { command: 'grep -n beta notes.txt' }, ws.ctx)).toEqual({
      ok: true,
      output: '2:beta',
    });
    expect(await registry.execute('shell', { command: 'pwd' }, ws.ctx)).toEqual({ ok: true, output: ws.dir });
  });

  it('passes arguments literally: no shell sees them', async () => {
    const r = await registry.execute('shell', { command: 'echo "a;b" "{x,y}" \'$HOME\'' }, ws.ctx);
    expect(r).toEqual({ ok: true, output: 'a;b {x,y} $HOME' });
  });

  it('creates files with an effect inside the workspace only', async () => {
    expect((await registry.execute('shell', { command: 'touch made.txt' }, ws.ctx)).ok).toBe(true);
    expect(existsSync(path.join(ws.dir, 'made.txt'))).toBe(true);
    expect(await registry.execute('shell', { command: 'touch ../escaped.txt' }, ws.ctx)).toMatchObject({
      ok: false,
      refused: true,
    });
    expect(existsSync(path.join(ws.dir, '..', 'escaped.txt'))).toBe(false);
  });

  it('reports a non-zero exit with stderr', async () => {
    const r = await registry.execute('shell', { command: 'ls missing-file' }, ws.ctx);
    expect(r.ok && r.output).toMatch(/\[stderr\][\s\S]*missing-file[\s\S]*\[exit code 2\]/);
  });

  it('kills a command at the timeout', async () => {
    const started = Date.now();
    const r = await registry.execute('shell', { command: 'sleep 10' }, ws.ctx);
    expect(r.ok && r.output).toMatch(/killed after 1 s timeout/);
    expect(Date.now() - started).toBeLessThan(5_000);
  });

  it('caps output', async () => {
    const r = await registry.execute('shell', { command: `echo ${'x'.repeat(200)}` }, ws.ctx);
    expect(r.ok && r.output).toBe(`${'x'.repeat(64)}\n[output truncated at 64 bytes]`);
  });

  it('stops when the turn is aborted', async () => {
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 100);
    const r = await registry.execute('shell', { command: 'sleep 10' }, { ...ws.ctx, signal: controller.signal });
    expect(r.ok && r.output).toBe('[cancelled]');
  });
});
