// `kazma doctor` and the start log say plainly whether shell commands run contained, and why not.
import { chmod, mkdtemp, realpath, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Logger } from '../../src/core/log/index.ts';
import { logSandboxStatus, sandboxStatus } from '../../src/core/tools/shell/sandbox-status.ts';
import { TEST_PG_ADMIN_URL } from '../helpers/databases.ts';
import { runKazma, writeConfig } from '../helpers/kazma-process.ts';

let fakeBin: string;
let brokenPath: string;
beforeAll(async () => {
  fakeBin = await realpath(await mkdtemp(path.join(tmpdir(), 'kazma-fake-bwrap-')));
  await writeFile(
    path.join(fakeBin, 'bwrap'),
    '#!/bin/sh\necho "bwrap: No permissions to create new namespace, likely because the kernel does not allow non-privileged user namespaces." >&2\nexit 1\n',
  );
  await chmod(path.join(fakeBin, 'bwrap'), 0o755);
  brokenPath = `${fakeBin}:${process.env.PATH}`;
});
afterAll(() => rm(fakeBin, { recursive: true, force: true }));

const base = { network: false, cpuSeconds: 60, workspace: '/nonexistent-workspace' };

describe('sandboxStatus', () => {
  it('available: says what the sandbox contains', async () => {
    const status = await sandboxStatus({ ...base, mode: 'bwrap', pathEnv: process.env.PATH });
    expect(status).toMatchObject({ state: 'available', ok: true });
    expect(status.message).toMatch(
      new RegExp(
        [
          /bubblewrap \(.*bwrap\) contains shell commands: /.source,
          /of the host only \/usr and a few \/etc files, read-only; /.source,
          /the workspace the only writable place, private \/tmp and HOME, network off, own PID namespace, /.source,
          /dies with Kazma; CPU limit 60 s, memory 512 MB and 64 processes per command/.source,
        ].join(''),
      ),
    );
  });

  it('as root, says commands run as tools.shell.run_as so the process limit holds; without setpriv, that it does not', async () => {
    const bwrap = { ...base, mode: 'bwrap' as const, pathEnv: process.env.PATH };
    const asUser = await sandboxStatus({ ...bwrap, memoryBytes: 2 * 1024 ** 3, asRoot: false });
    expect(asUser.message).toMatch(/memory 2048 MB and 64 processes per command$/);
    if (process.getuid?.() !== 0) return; // dropping to another user needs Kazma to be root
    const asRoot = await sandboxStatus({ ...bwrap, maxProcesses: 32, asRoot: true, runAs: { uid: 4242, gid: 4343 } });
    expect(asRoot.message).toMatch(
      /32 processes per command; commands run as uid 4242:4343 \(tools\.shell\.run_as\), not as root, so that the kernel holds them to the process limit$/,
    );
    // bwrap and prlimit, but no setpriv: commands would run as root, and the report says what that means.
    const noSetpriv = await mkdtemp(path.join(tmpdir(), 'kazma-no-setpriv-'));
    try {
      for (const name of ['bwrap', 'prlimit']) await symlink(`/usr/bin/${name}`, path.join(noSetpriv, name));
      const without = await sandboxStatus({ ...bwrap, pathEnv: noSetpriv, maxProcesses: 32, asRoot: true });
      expect(without.message).toMatch(
        /32 processes per command \(the process limit is not enforced: Kazma runs as root, .*cannot drop to tools\.shell\.run_as here: setpriv \(util-linux\) is not on PATH\)$/,
      );
    } finally {
      await rm(noSetpriv, { recursive: true, force: true });
    }
  });

  it('unavailable: says why, that shell is refused, and the way out', async () => {
    const status = await sandboxStatus({ ...base, mode: 'bwrap', pathEnv: brokenPath });
    expect(status).toMatchObject({ state: 'unavailable', ok: false });
    expect(status.message).toMatch(
      /cannot run here: bwrap: No permissions to create new namespace.*refused.*apt-get install bubblewrap.*tools\.shell\.sandbox: off/,
    );
    expect((await sandboxStatus({ ...base, mode: 'bwrap', pathEnv: '/nonexistent' })).message).toMatch(
      /bwrap is not installed/,
    );
  });

  it('off: says commands run uncontained', async () => {
    expect(await sandboxStatus({ ...base, mode: 'off', pathEnv: brokenPath })).toMatchObject({
      state: 'off',
      ok: true,
      message: expect.stringMatching(/uncontained/),
    });
  });

  it('the start log warns when shell is refused or uncontained, and informs otherwise', async () => {
    const lines: Array<[string, unknown, string]> = [];
    const logger = {
      info: (fields: unknown, msg: string) => lines.push(['info', fields, msg]),
      warn: (fields: unknown, msg: string) => lines.push(['warn', fields, msg]),
    } as unknown as Logger;
    for (const [mode, pathEnv] of [
      ['bwrap', process.env.PATH],
      ['bwrap', brokenPath],
      ['off', process.env.PATH],
    ] as const) {
      logSandboxStatus(logger, await sandboxStatus({ ...base, mode, pathEnv }));
    }
    expect(lines.map(([level, fields]) => [level, fields])).toEqual([
      ['info', { sandbox: 'available' }],
      ['warn', { sandbox: 'unavailable' }],
      ['warn', { sandbox: 'off' }],
    ]);
    expect(lines[1]?.[2]).toMatch(/^shell sandbox: bubblewrap cannot run here: /);
  });
});

describe('kazma doctor', () => {
  const config = (extra = '') => writeConfig(`database: { url: "${TEST_PG_ADMIN_URL}" }\n${extra}`).path;

  it('reports the sandbox as working where bubblewrap runs', async () => {
    const { stdout } = await runKazma(['doctor', '--config', config()]);
    expect(stdout).toMatch(/^✓ shell sandbox: bubblewrap \(.*\) contains shell commands: of the host only \/usr/m);
  });

  it('fails the check, with the reason, where bubblewrap cannot run', async () => {
    const { code, stdout } = await runKazma(['doctor', '--config', config()], { env: { PATH: brokenPath } });
    expect(stdout).toMatch(
      /^✗ shell sandbox: bubblewrap cannot run here: bwrap: No permissions to create new namespace/m,
    );
    expect(code).toBe(1);
  });

  it('says so when the sandbox is off by configuration', async () => {
    const { stdout } = await runKazma(['doctor', '--config', config('tools: { shell: { sandbox: "off" } }')], {
      env: { PATH: brokenPath },
    });
    expect(stdout).toMatch(/^✓ shell sandbox: off \(tools\.shell\.sandbox: off\): shell commands run uncontained/m);
  });
});
