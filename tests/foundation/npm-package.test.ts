// `npm pack` gives a tarball that installs globally and runs outside a checkout: `kazma --version`,
// `kazma init` (its data under the XDG data directory) and `kazma start` reaching /readyz. The install
// takes what it can from npm's cache (`--prefer-offline`): `npm ci` fills it with the packages' tarballs but
// not with the registry's metadata a global install resolves by, which it then asks the registry for.
import { execFile, spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterEach, describe, expect, it } from 'vitest';
import { startFakeLlm } from '../fakes/llm-server.ts';
import { eventually } from '../helpers/eventually.ts';
import { REPO_ROOT } from '../helpers/repo-root.ts';

const run = promisify(execFile);
const cleanup: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const step of cleanup.splice(0).reverse()) await step();
});

describe('the npm package', () => {
  it('installs globally from npm pack and runs init and start outside a checkout', { timeout: 400_000 }, async () => {
    const tmp = mkdtempSync(join(tmpdir(), 'kazma-pack-'));
    // prepack builds dist/ when it is stale (here global-setup built it already).
    await run('npm', ['pack', '--pack-destination', tmp], { cwd: REPO_ROOT, timeout: 120_000 });
    const tarball = join(tmp, readdirSync(tmp).find((name) => /^kazma-.*\.tgz$/.test(name))!);
    const listed = (await run('tar', ['-tzf', tarball], { maxBuffer: 16 << 20 })).stdout.split('\n');
    for (const needed of [
      'package/bin/kazma.js',
      'package/dist/cli/index.js',
      'package/dist/.build-stamp',
      'package/migrations/meta/_journal.json',
      'package/slack-app-manifest.yaml',
      'package/src/core/media/document-worker.mjs',
    ])
      expect(listed).toContain(needed);
    expect(listed.filter((path) => /^package\/(src\/cli|tests)\//.test(path))).toEqual([]);

    const prefix = join(tmp, 'prefix');
    await run(
      'npm',
      [
        'install',
        '--global',
        '--prefix',
        prefix,
        tarball,
        '--prefer-offline',
        '--ignore-scripts',
        '--no-audit',
        '--no-fund',
      ],
      { cwd: tmp, timeout: 300_000 },
    );
    const kazma = join(prefix, 'bin', 'kazma');
    const home = join(tmp, 'home');
    const work = join(tmp, 'work');
    mkdirSync(home);
    mkdirSync(work);
    const env: Record<string, string | undefined> = { ...process.env, HOME: home, XDG_DATA_HOME: join(tmp, 'xdg') };
    for (const name of ['DATABASE_URL', 'REDIS_URL', 'KAZMA_VAULT_KEY', 'KAZMA_CONFIG', 'KAZMA_MODEL'])
      delete env[name];
    for (const name of ['OPENAI_API_KEY', 'OPENAI_BASE_URL', 'ANTHROPIC_API_KEY']) delete env[name];
    const version = await run(kazma, ['--version'], { cwd: work, env });
    const pkg = JSON.parse(readFileSync(join(REPO_ROOT, 'package.json'), 'utf8')) as { version: string };
    expect(version.stdout.trim()).toBe(`kazma ${pkg.version}`);

    const llm = await startFakeLlm();
    cleanup.push(() => llm.close());
    const init = await run(
      kazma,
      ['init', '--yes', '--model', 'fake-model', '--base-url', llm.baseURL, '--api-key', 'sk-test-123456'].concat([
        '--operator',
        'me',
        '--http-port',
        '0',
      ]),
      { cwd: work, env },
    );
    expect(init.stdout).toContain('✓ model: ');
    const dataDir = join(tmp, 'xdg', 'kazma');
    expect(readFileSync(join(work, 'kazma.yaml'), 'utf8')).toContain(`data_dir: "${dataDir}"`);
    expect(statSync(join(dataDir, 'vault.key')).mode & 0o777).toBe(0o600);

    const child = spawn(kazma, ['start'], { cwd: work, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (chunk) => (output += chunk));
    child.stderr.on('data', (chunk) => (output += chunk));
    const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
    cleanup.push(() => void (child.exitCode === null && child.kill('SIGKILL')));
    const listening = () =>
      output
        .split('\n')
        .filter((line) => line.startsWith('{'))
        .map((line) => JSON.parse(line) as { msg?: string; port?: number })
        .find((line) => line.msg === 'http listening');
    const port = await eventually(
      async () => listening()?.port,
      (found) => found,
      () => `the http listening line\n${output}`,
      { timeoutMs: 90_000 },
    );
    const ready = await eventually(
      async () => (await fetch(`http://127.0.0.1:${port}/readyz`)).status,
      (status) => (status === 200 ? status : undefined),
      () => `/readyz 200\n${output}`,
    );
    expect(ready).toBe(200);
    expect(existsSync(join(dataDir, 'pglite'))).toBe(true);
    // Started: its stop on SIGTERM is graceful only from here.
    await eventually(
      async () => output.includes('"msg":"kazma started"'),
      (started) => started,
      () => `the kazma started line\n${output}`,
    );
    child.kill('SIGTERM');
    expect(await exited).toBe(0);
  });
});
