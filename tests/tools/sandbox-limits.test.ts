// What one approved command may take: memory (`tools.shell.memory`, RLIMIT_AS) and processes
// (`tools.shell.max_processes`, RLIMIT_NPROC), set by util-linux prlimit around the sandbox. Each limit
// is shown to stop its hog, and a roomier limit lets the same payload through (so the test can fail).
// As root (the kernel exempts uid 0 from RLIMIT_NPROC, user namespace or not) the shell tool itself runs
// the command as `tools.shell.run_as`: a fork bomb through the tool is capped, the workspace stays
// writable by the command (what Kazma wrote there too), and the hand-over of the workspace changes no
// file outside it through a link.
import { chmod, link, mkdir, readFile, realpath, rm, stat, symlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { shellTool, type ShellToolOptions } from '../../src/core/tools/builtin/shell.ts';
import { findBinary } from '../../src/core/tools/shell/binaries.ts';
import { launchCommand } from '../../src/core/tools/shell/launch.ts';
import { runArgv } from '../../src/core/tools/shell/run.ts';
import { ToolRegistry } from '../../src/core/tools/registry.ts';
import { makeCanary } from './escape-kit.ts';
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

describe.runIf(process.getuid?.() === 0)('as root: commands run as tools.shell.run_as', () => {
  const bomb = 'for i in $(seq 1 40); do sleep 2 & done; wait; echo all forked';

  it('the shell tool caps a fork bomb at tools.shell.max_processes', async () => {
    const out = await viaAlias({ maxProcesses: 12 }, bomb);
    expect(out).not.toMatch(/^all forked$/m); // the shell's error quotes the command: the line alone is the success
    expect(out).toMatch(/Cannot fork|Resource temporarily unavailable/i);
  });

  it('negative control: under a roomier limit every process starts', async () => {
    expect(await viaAlias({ maxProcesses: 200 }, bomb)).toMatch(/^all forked$/m);
  });

  it('the command runs as that user and writes what Kazma wrote; Kazma reads what it made', async () => {
    // Kazma's own writes (write_file, an operator's copy) are root's, 0644, in root's 0700 folders.
    await mkdir(path.join(ws.dir, 'notes'), { mode: 0o700 });
    await writeFile(path.join(ws.dir, 'notes', 'kazma.txt'), 'from kazma\n', { mode: 0o644 });
    const out = await viaAlias(
      { runAs: { uid: 4242, gid: 4343 } },
      'id -u > uid.txt; id -g >> uid.txt; echo from the command >> notes/kazma.txt; mkdir made; echo new > made/file',
    );
    expect(out).not.toMatch(/denied|exit code/i);
    expect(await readFile(path.join(ws.dir, 'uid.txt'), 'utf8')).toBe('4242\n4343\n');
    expect(await readFile(path.join(ws.dir, 'notes', 'kazma.txt'), 'utf8')).toBe('from kazma\nfrom the command\n');
    expect(await readFile(path.join(ws.dir, 'made', 'file'), 'utf8')).toBe('new\n');
    expect((await stat(path.join(ws.dir, 'made', 'file'))).uid).toBe(4242);
  });

  it('handing the workspace over changes no file outside it, through a symlink or a hard link', async () => {
    const canary = await makeCanary();
    try {
      await symlink(canary.secretFile, path.join(ws.dir, 'soft'));
      await symlink(canary.dir, path.join(ws.dir, 'softdir'));
      await link(canary.secretFile, path.join(ws.dir, 'hard')).catch(() => undefined); // another file system: no link
      await viaAlias({ runAs: { uid: 4242, gid: 4242 } }, 'true');
      for (const outside of [canary.dir, canary.secretFile]) expect((await stat(outside)).uid).toBe(0);
      await canary.untouched();
    } finally {
      await rm(path.join(ws.dir, 'hard'), { force: true });
      await canary.cleanup();
    }
  });
});
