import { mkdir, readFile, symlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { builtinTools } from '../../src/core/tools/builtin/index.ts';
import { ToolRegistry } from '../../src/core/tools/registry.ts';
import { makeWorkspace } from './fixture.ts';

let ws: Awaited<ReturnType<typeof makeWorkspace>>;
let outside: Awaited<ReturnType<typeof makeWorkspace>>;
const registry = new ToolRegistry();
for (const tool of builtinTools({
  readFile: { maxBytes: 10 },
  time: { zone: 'Europe/Berlin', clock: { now: () => new Date('2026-01-15T12:00:00Z') } },
}))
  registry.register(tool);

beforeAll(async () => {
  ws = await makeWorkspace();
  outside = await makeWorkspace();
  await writeFile(path.join(outside.dir, 'secret.txt'), 'top secret');
  await mkdir(path.join(ws.dir, 'docs'));
  await writeFile(path.join(ws.dir, 'docs', 'a.md'), 'hello');
  await writeFile(path.join(ws.dir, 'long.txt'), 'abcdefghijklmnopqrstuvwxyz');
  await symlink(outside.dir, path.join(ws.dir, 'out-link'));
  await symlink(path.join(outside.dir, 'new.txt'), path.join(ws.dir, 'dangling'));
});
afterAll(async () => {
  await ws.cleanup();
  await outside.cleanup();
});

describe('built-in tool tiers', () => {
  it.each([
    ['current_time', {}, 'run'],
    ['list_files', {}, 'run'],
    ['read_file', { path: 'docs/a.md' }, 'run'],
    ['write_file', { path: 'x.txt', content: '' }, 'ask'],
    ['shell', { command: 'ls' }, 'ask'],
  ])('%s → %s', async (name, args, kind) => {
    expect((await registry.classify(name, args, ws.ctx)).kind).toBe(kind);
  });
});

describe('file tools are confined to the workspace', () => {
  it('lists a directory, marking directories and links', async () => {
    expect(await registry.execute('list_files', {}, ws.ctx)).toEqual({
      ok: true,
      output: 'dangling@\ndocs/\nlong.txt\nout-link@',
    });
  });

  it('reads a file, cutting it at the size cap', async () => {
    // A file's words are outside text: the registry fences them; the inside is the file as read.
    const inside = (r: { ok: boolean; output?: string }) => (r.ok ? r.output!.split('\n').slice(1, -1).join('\n') : r);
    expect(inside(await registry.execute('read_file', { path: 'docs/a.md' }, ws.ctx))).toBe('hello');
    const r = await registry.execute('read_file', { path: 'long.txt' }, ws.ctx);
    expect(inside(r)).toBe('abcdefghij\n[truncated: file is 26 bytes, showing the first 10]');
  });

  it('writes a file, creating parent directories', async () => {
    const r = await registry.execute('write_file', { path: 'new/dir/b.txt', content: 'hi' }, ws.ctx);
    expect(r).toEqual({ ok: true, output: 'wrote 2 bytes to new/dir/b.txt' });
    expect(await readFile(path.join(ws.dir, 'new/dir/b.txt'), 'utf8')).toBe('hi');
  });

  it.each([
    ['read_file', { path: '../secret.txt' }],
    ['read_file', { path: 'out-link/secret.txt' }],
    ['list_files', { path: 'out-link' }],
    ['list_files', { path: '/etc' }],
    ['write_file', { path: 'out-link/evil.txt', content: 'x' }],
    ['write_file', { path: 'dangling', content: 'x' }],
    ['write_file', { path: '~/evil.txt', content: 'x' }],
  ])('%s %j is refused before it runs', async (name, args) => {
    const c = await registry.classify(name, args, ws.ctx);
    expect(c.kind).toBe('refuse');
    expect(c.kind === 'refuse' && c.reason).toMatch(/outside the workspace|symlink to a missing target|home directory/);
    expect(await registry.execute(name, args, ws.ctx)).toMatchObject({ ok: false, refused: true });
  });

  it('never wrote through a refused path', async () => {
    await expect(readFile(path.join(outside.dir, 'evil.txt'))).rejects.toThrow();
    await expect(readFile(path.join(outside.dir, 'new.txt'))).rejects.toThrow();
  });

  it.each([
    '.git/hooks/pre-commit',
    '.git/config',
    '.git',
    'sub/.git',
    'sub/.git/config',
    '.GIT/config',
    '.gitattributes',
    'docs/.gitattributes',
    '.gitmodules',
    'git-link/config',
  ])('refuses to write %s: git reads it as config, hooks or attributes', async (target) => {
    await mkdir(path.join(ws.dir, '.git'), { recursive: true });
    await symlink('.git', path.join(ws.dir, 'git-link')).catch(() => undefined);
    const c = await registry.classify('write_file', { path: target, content: '[alias]\n\tx = !id\n' }, ws.ctx);
    expect(c).toMatchObject({ kind: 'refuse', reason: expect.stringMatching(/\.git/) });
    expect(await registry.execute('write_file', { path: target, content: 'x' }, ws.ctx)).toMatchObject({
      ok: false,
      refused: true,
    });
  });
});

describe('current_time', () => {
  it('answers in the configured zone, or the one asked for', async () => {
    // ICU versions differ in punctuation and zone abbreviations, so match the parts that matter.
    const berlin = await registry.execute('current_time', {}, ws.ctx);
    expect(berlin.ok && berlin.output).toMatch(
      /^Thursday,? 15 January 2026 at 13:00:00 .*\(Europe\/Berlin\); ISO 2026-01-15T12:00:00\.000Z$/,
    );
    const tokyo = await registry.execute('current_time', { zone: 'Asia/Tokyo' }, ws.ctx);
    expect(tokyo.ok && tokyo.output).toMatch(/21:00:00 .*\(Asia\/Tokyo\)/);
  });

  it('rejects a zone that is not IANA', async () => {
    const c = await registry.classify('current_time', { zone: 'Mars/Olympus' }, ws.ctx);
    expect(c).toMatchObject({ kind: 'invalid', error: expect.stringMatching(/zone: not an IANA time zone/) });
  });
});
