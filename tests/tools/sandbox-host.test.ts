// The sandbox hides the host, not only Kazma's data: an approved command sees /usr, a few files of /etc,
// the workspace and a private /tmp — other applications' files (/srv, /var, /home, /opt, …) are absent.
// Each example once read a file outside the workspace through an allowed program; each runs again with
// `tools.shell.sandbox: off` as the negative control, proving the payload reaches the secret otherwise.
import { execFileSync } from 'node:child_process';
import { mkdir, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { shellTool } from '../../src/core/tools/builtin/shell.ts';
import { ToolRegistry } from '../../src/core/tools/registry.ts';
import { makeCanary, SECRET, type Canary } from './escape-kit.ts';
import { makeWorkspace } from './fixture.ts';

let ws: Awaited<ReturnType<typeof makeWorkspace>>;
let canary: Canary;
beforeEach(async () => {
  ws = await makeWorkspace();
  // /srv: another application's files, outside /tmp (private in the sandbox) and outside Kazma's reach.
  canary = await makeCanary('/srv');
});
afterEach(async () => {
  await ws.cleanup();
  await canary.cleanup();
  await rm(`${canary.dir}-repo`, { recursive: true, force: true });
});

type Mode = 'bwrap' | 'off';

/** Runs the commands in turn in the workspace; returns the last one's output (or refusal). */
async function run(sandbox: Mode, ...commands: string[]): Promise<string> {
  const registry = new ToolRegistry().register(shellTool({ sandbox, timeoutMs: 20_000 }));
  let last = '';
  for (const command of commands) {
    const result = await registry.execute('shell', { command }, ws.ctx);
    last = result.ok ? result.output : `refused: ${JSON.stringify(result)}`;
  }
  return last;
}

/** A file in the workspace naming `target`, NUL-terminated, for --files0-from. */
const nameList = (target: string) => writeFile(path.join(ws.dir, 'names'), `${target}\0`);

describe.each<[string, (sandbox: Mode) => Promise<string>]>([
  [
    'sort --files0-from',
    async (sandbox) => {
      await nameList(canary.secretFile);
      return run(sandbox, 'sort --files0-from=names');
    },
  ],
  [
    'find -files0-from',
    async (sandbox) => {
      await nameList(canary.dir);
      return run(sandbox, 'find -files0-from names -name secret.txt');
    },
  ],
  [
    'git clone file://',
    async (sandbox) => {
      const repo = `${canary.dir}-repo`;
      const git = (...args: string[]) => execFileSync('git', ['-C', repo, ...args], { stdio: 'ignore' });
      await mkdir(repo);
      await writeFile(path.join(repo, 'secret.txt'), SECRET);
      git('init', '-q');
      git('add', 'secret.txt');
      git('-c', 'user.name=x', '-c', 'user.email=x@x', 'commit', '-qm', 'secret');
      return run(sandbox, `git clone -q file://${repo} copy`, 'cat copy/secret.txt');
    },
  ],
  [
    'a symlink made with git plumbing, then grep -R',
    async (sandbox) => {
      await writeFile(path.join(ws.dir, 'target'), canary.dir);
      const sha = (await run(sandbox, 'git init -q', 'git hash-object -w target')).trim();
      const link = `git update-index --add --cacheinfo 120000,${sha},link`;
      return run(sandbox, link, 'git checkout-index -f link', `grep -R ${SECRET} .`);
    },
  ],
])('%s', (_name, payload) => {
  it('cannot see a file outside the workspace in the sandbox', async () => {
    const out = await payload('bwrap');
    expect(out).not.toContain(SECRET);
    // Not even listed as existing (find prints a found path on a line of its own; an error names it in words).
    expect(out.split('\n')).not.toContain(canary.secretFile);
    await canary.untouched();
  });

  it('negative control, sandbox off: the same commands read it', async () => {
    const out = await payload('off');
    expect(out.includes(SECRET) || out.includes(canary.secretFile), out).toBe(true);
  });
});
