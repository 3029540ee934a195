// The second fence: whatever the shell policy lets through runs inside bubblewrap. Each containment test
// runs the same payload with `tools.shell.sandbox: off` as a negative control, proving it can fail.
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { chmod, mkdtemp, readdir, readFile, realpath, rm, truncate, writeFile } from 'node:fs/promises';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { shellTool } from '../../src/core/tools/builtin/shell.ts';
import { ToolRegistry } from '../../src/core/tools/registry.ts';
import { eventually } from '../helpers/eventually.ts';
import { fixtureArgs } from '../helpers/fixtures.ts';
import { REPO_ROOT } from '../helpers/repo-root.ts';
import { makeCanary, SECRET, type Canary } from './escape-kit.ts';
import { makeWorkspace } from './fixture.ts';

const CHILD = fileURLToPath(new URL('./fixtures/shell-child.ts', import.meta.url));

let ws: Awaited<ReturnType<typeof makeWorkspace>>;
let canary: Canary;
let tmpCanary: Canary;
let home: Canary;
beforeEach(async () => {
  ws = await makeWorkspace();
  canary = await makeCanary();
  tmpCanary = await makeCanary(tmpdir());
  home = await makeCanary();
});
afterEach(async () => {
  for (const dir of [ws, canary, tmpCanary, home]) await dir.cleanup();
});

/** Puts an alias in the repository's own config, as a repository that arrived with one would have. */
async function repoWithAlias(payload: string): Promise<void> {
  await writeFile(path.join(ws.dir, 'a.txt'), 'x');
  const registry = new ToolRegistry().register(shellTool({ sandbox: 'off' }));
  expect(await registry.execute('shell', { command: 'git init -q' }, ws.ctx)).toMatchObject({ ok: true });
  const config = path.join(ws.dir, '.git', 'config');
  await writeFile(config, `${await readFile(config, 'utf8')}[alias]\n\tx = "!${payload}"\n`);
}

const ran = (file: string) => readFile(path.join(ws.dir, file), 'utf8').catch(() => '');

describe('code the policy cannot recognise runs contained', () => {
  const payload = () =>
    [
      `touch ${canary.marker}`,
      `touch ${tmpCanary.marker}`,
      `cat ${home.secretFile} > home.txt`,
      'ls /proc > procs.txt',
      'touch inside.txt',
      'true',
    ].join('; ');

  it('with bubblewrap: the workspace is the only writable place, HOME is private, other processes are not seen', async () => {
    await repoWithAlias(payload());
    const registry = new ToolRegistry().register(shellTool({ sandbox: 'bwrap' }));
    const r = await registry.execute(
      'shell',
      { command: 'git x' },
      { ...ws.ctx, env: { ...ws.ctx.env, HOME: home.dir } },
    );
    expect(r.ok, JSON.stringify(r)).toBe(true);
    expect(await ran('inside.txt')).toBe('');
    await expect(readdir(ws.dir)).resolves.toContain('inside.txt');
    await canary.untouched();
    await tmpCanary.untouched();
    expect(await ran('home.txt')).not.toContain(SECRET);
    const pids = (await ran('procs.txt')).split('\n').filter((name) => /^\d+$/.test(name));
    expect(pids.length).toBeGreaterThan(0);
    expect(pids).not.toContain(String(process.pid));
    expect(pids.length).toBeLessThan(10);
  });

  it('negative control, sandbox off: the same payload escapes (so the test above can fail)', async () => {
    await repoWithAlias(payload());
    const registry = new ToolRegistry().register(shellTool({ sandbox: 'off' }));
    const r = await registry.execute(
      'shell',
      { command: 'git x' },
      { ...ws.ctx, env: { ...ws.ctx.env, HOME: home.dir } },
    );
    expect(r.ok, JSON.stringify(r)).toBe(true);
    await expect(canary.untouched()).rejects.toThrow();
    await expect(tmpCanary.untouched()).rejects.toThrow();
    expect(await ran('home.txt')).toContain(SECRET);
    expect((await ran('procs.txt')).split('\n')).toContain(String(process.pid));
  });
});

describe('network', () => {
  it('is off in the sandbox unless tools.shell.network is on; the control (off) reaches the server', async () => {
    let requests = 0;
    const server = createServer((_req, res) => {
      requests++;
      res.writeHead(404).end();
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/r.git`;
    const attempt = async (options: Parameters<typeof shellTool>[0]): Promise<number> => {
      const before = requests;
      await new ToolRegistry()
        .register(shellTool(options))
        .execute('shell', { command: `git ls-remote ${url}` }, ws.ctx);
      return requests - before;
    };
    try {
      expect(await attempt({ sandbox: 'bwrap' })).toBe(0);
      expect(await attempt({ sandbox: 'bwrap', network: true })).toBeGreaterThan(0);
      expect(await attempt({ sandbox: 'off' })).toBeGreaterThan(0);
    } finally {
      server.close();
    }
  });
});

describe('limits', () => {
  it('stops a command at its CPU time limit', async () => {
    // A sparse file of 1 TB: hashing it is pure CPU, with no output to wait on.
    await writeFile(path.join(ws.dir, 'big.bin'), '');
    await truncate(path.join(ws.dir, 'big.bin'), 2 ** 40);
    const registry = new ToolRegistry().register(shellTool({ allow: ['sha256sum'], cpuSeconds: 1, timeoutMs: 60_000 }));
    const started = Date.now();
    const r = await registry.execute('shell', { command: 'sha256sum big.bin' }, ws.ctx);
    expect(r.ok && r.output).toMatch(/CPU time limit of 1 s/);
    expect(Date.now() - started).toBeLessThan(30_000);
  });
});

describe('where bubblewrap cannot run', () => {
  it('shell is refused with the reason and the way out; sandbox: off runs it', async () => {
    const bin = await realpath(await mkdtemp(path.join(tmpdir(), 'kazma-fake-bwrap-')));
    try {
      await writeFile(
        path.join(bin, 'bwrap'),
        '#!/bin/sh\necho "bwrap: No permissions to create new namespace, likely because the kernel does not allow non-privileged user namespaces." >&2\nexit 1\n',
      );
      await chmod(path.join(bin, 'bwrap'), 0o755);
      const ctx = { ...ws.ctx, env: { ...ws.ctx.env, PATH: `${bin}:${process.env.PATH}` } };
      const strict = new ToolRegistry().register(shellTool({}));
      const c = await strict.classify('shell', { command: 'pwd' }, ctx);
      expect(c).toMatchObject({ kind: 'refuse' });
      expect(c.kind === 'refuse' && c.reason).toMatch(
        /sandbox \(bubblewrap\) cannot run here: .*No permissions to create new namespace.*tools\.shell\.sandbox: off/,
      );
      expect(await strict.execute('shell', { command: 'pwd' }, ctx)).toMatchObject({ ok: false, refused: true });
      const loose = new ToolRegistry().register(shellTool({ sandbox: 'off' }));
      expect(await loose.execute('shell', { command: 'pwd' }, ctx)).toEqual({ ok: true, output: ws.dir });
    } finally {
      await rm(bin, { recursive: true, force: true });
    }
  });
});

/** Pids of `sleep <seconds>` processes (the sandbox shows up here too: its argv ends with the same words). */
async function sleepers(seconds: string): Promise<number[]> {
  const found: number[] = [];
  for (const entry of await readdir('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const argv = (await readFile(`/proc/${entry}/cmdline`, 'utf8').catch(() => '')).split('\0');
    if (argv.includes(seconds) && /(^|\/)(sleep|bwrap|prlimit)$/.test(argv[0] ?? '')) found.push(Number(entry));
  }
  return found;
}

function readlinkArgv0(pid: number): string {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0')[0] ?? '';
  } catch {
    return '';
  }
}

describe('a running shell child dies with Kazma', () => {
  async function killParentMidCommand(sandbox: 'bwrap' | 'off'): Promise<string> {
    const seconds = `${(40 + Math.random() * 10).toFixed(6)}`;
    const child = spawn(process.execPath, [...fixtureArgs(CHILD), ws.dir, sandbox, seconds], {
      cwd: REPO_ROOT,
      stdio: 'ignore',
    });
    const exited = new Promise((resolve) => child.once('exit', resolve));
    // Wait for the sleep itself, not only the sandbox starting it.
    const asleep = async () => (await sleepers(seconds)).some((pid) => /(^|\/)sleep$/.test(readlinkArgv0(pid)));
    await eventually(asleep, (found) => found, `the child's sleep ${seconds} running`, {
      timeoutMs: 30_000,
      intervalMs: 50,
    });
    child.kill('SIGKILL');
    await exited;
    return seconds;
  }

  it('with bubblewrap, the sleep is gone once the parent is SIGKILLed', async () => {
    const seconds = await killParentMidCommand('bwrap');
    await eventually(
      () => sleepers(seconds),
      (pids) => pids.length === 0,
      'every process of the sleep gone (pids last seen follow)',
      { timeoutMs: 5_000, intervalMs: 50 },
    );
  });

  it('negative control, sandbox off: the sleep outlives its parent', async () => {
    const seconds = await killParentMidCommand('off');
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    const survivors = await sleepers(seconds);
    for (const pid of survivors) process.kill(pid, 'SIGKILL'); // the processes this test started
    expect(survivors.length).toBeGreaterThan(0);
  });
});
