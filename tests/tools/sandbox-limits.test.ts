// What one approved command may take: memory (`tools.shell.memory`, RLIMIT_AS) and processes
// (`tools.shell.max_processes`, RLIMIT_NPROC), set by util-linux prlimit around the sandbox. Each limit
// is shown to stop its hog, and a roomier limit lets the same payload through (so the test can fail).
import { chmod, readFile, realpath, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { shellTool, type ShellToolOptions } from '../../src/core/tools/builtin/shell.ts';
import { findBinary } from '../../src/core/tools/shell/binaries.ts';
import { launchCommand } from '../../src/core/tools/shell/launch.ts';
import { runArgv } from '../../src/core/tools/shell/run.ts';
import { ToolRegistry } from '../../src/core/tools/registry.ts';
import { makeWorkspace } from './fixture.ts';

let ws: Awaited<ReturnType<typeof makeWorkspace>>;
beforeEach(async () => {
  ws = await makeWorkspace();
});
afterEach(() => ws.cleanup());

const MB = 1024 * 1024;

/** A git alias runs what the policy cannot see, as a repository that arrived with one would. */
async function viaAlias(options: ShellToolOptions, payload: string): Promise<string> {
  const off = new ToolRegistry().register(shellTool({ sandbox: 'off' }));
  expect(await off.execute('shell', { command: 'git init -q' }, ws.ctx)).toMatchObject({ ok: true });
  const config = path.join(ws.dir, '.git', 'config');
  await writeFile(config, `${await readFile(config, 'utf8')}[alias]\n\tx = "!${payload}"\n`);
  const registry = new ToolRegistry().register(shellTool({ timeoutMs: 30_000, ...options }));
  const result = await registry.execute('shell', { command: 'git x' }, ws.ctx);
  return result.ok ? result.output : JSON.stringify(result);
}

describe('tools.shell.memory', () => {
  // 200 MB of string: more than a 64 MB limit allows, well within 1 GB.
  const hog = "perl -e 'print length(qq(x) x 200000000)'";

  it('stops a command that takes more memory than its limit', async () => {
    const out = await viaAlias({ memoryBytes: 64 * MB }, hog);
    expect(out).not.toContain('200000000');
    expect(out).toMatch(/Out of memory/);
  });

  it('negative control: with room, the same command finishes', async () => {
    expect(await viaAlias({ memoryBytes: 1024 * MB }, hog)).toContain('200000000');
  });
});

describe('tools.shell.max_processes', () => {
  const bomb = 'for i in $(seq 1 40); do sleep 2 & done; wait; echo all forked';

  it('is handed to the sandbox as RLIMIT_NPROC, with the memory and CPU limits', () => {
    const launch = launchCommand({
      program: '/usr/bin/true',
      args: [],
      given: 'true',
      limits: { prlimit: '/usr/bin/prlimit', cpuSeconds: 60, memoryBytes: 512 * MB, maxProcesses: 64 },
    });
    expect([launch.file, ...launch.args]).toEqual([
      '/usr/bin/prlimit',
      '--cpu=60:61',
      `--as=${512 * MB}`,
      '--nproc=64',
      '--',
      '/usr/bin/true',
    ]);
  });

  /**
   * Runs the fork bomb as the shell tool launches it, as an ordinary user: the kernel exempts root (real
   * uid 0, which a user namespace maps back to) from RLIMIT_NPROC, so as root the test drops to nobody.
   */
  async function forkBomb(maxProcesses: number): Promise<{ stdout: string; stderr: string }> {
    const bwrap = findBinary('bwrap', process.env.PATH, ws.dir)!;
    const prlimit = findBinary('prlimit', process.env.PATH, ws.dir)!;
    const sh = await realpath('/bin/sh');
    const launch = launchCommand({
      program: sh,
      args: ['-c', bomb],
      given: 'sh',
      sandbox: { bwrap, plan: { workspace: ws.dir, network: false, hide: [] } },
      limits: { prlimit, cpuSeconds: 30, memoryBytes: 512 * MB, maxProcesses },
    });
    await chmod(ws.dir, 0o777);
    const asUser = process.getuid?.() === 0 ? ['--reuid=65534', '--regid=65534', '--clear-groups', '--'] : [];
    const argv = [...(asUser.length > 0 ? ['setpriv', ...asUser] : []), launch.file, ...launch.args];
    const options = { cwd: ws.dir, env: { PATH: '/usr/bin:/bin' }, timeoutMs: 30_000, maxOutputBytes: 65_536 };
    return runArgv(argv[0]!, argv.slice(1), options);
  }

  it('caps a fork bomb at the limit', async () => {
    const { stdout, stderr } = await forkBomb(12);
    expect(stdout).not.toContain('all forked');
    expect(stderr).toMatch(/fork|Resource temporarily unavailable/i);
  });

  it('negative control: under a roomier limit every process starts', async () => {
    expect((await forkBomb(200)).stdout).toContain('all forked');
  });
});
