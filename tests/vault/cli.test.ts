// `kazma vault set|list|rm` as a person runs it: the real CLI in a child process, on a temp data_dir. The
// value goes in on stdin, never in argv, and never comes out again; wrong or missing keys, unknown names,
// a held data dir and a pointer `kazma start` cannot resolve each get one clear message and the exit code.
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { openDatabase } from '../../src/core/db/index.ts';
import { Vault } from '../../src/core/vault/index.ts';
import { runKazma, writeConfig } from '../helpers/kazma-process.ts';
import { seedPgliteDataDir } from '../helpers/databases.ts';

const SECRET = 'xoxb-secret-value-0123456789';
const KEY = 'cli test passphrase';
const { dir, path } = writeConfig('data_dir: ./data\n');
await seedPgliteDataDir(join(dir, 'data'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** `kazma vault …` with `stdin` piped in (closed at once when none). */
async function vault(args: string[], options: { stdin?: string; key?: string | undefined; config?: string } = {}) {
  const env = { KAZMA_VAULT_KEY: 'key' in options ? options.key : KEY, KAZMA_CONFIG: undefined };
  const run = await runKazma(['vault', ...args, '--config', options.config ?? path], {
    cwd: dir,
    env,
    ...(options.stdin !== undefined && { input: options.stdin }),
  });
  expect(run.stdout + run.stderr).not.toContain(SECRET);
  return run;
}

// Every run is a fresh process (tsx, PGlite, the key at 600,000 iterations): slow on two busy cores.
describe('kazma vault', { timeout: 240_000 }, () => {
  // Each run opens PGlite and derives the key at the real 600,000 iterations, so the steps are split.
  it('set (from stdin, one trailing newline dropped) and list (names only)', async () => {
    expect(await vault(['set', 'slack-bot'], { stdin: `${SECRET}\n` })).toMatchObject({
      code: 0,
      stdout: 'stored secret "slack-bot"; refer to it as vault://slack-bot\n',
    });
    expect(await vault(['set', 'another'], { stdin: 'another-value' })).toMatchObject({ code: 0 });
    expect(await vault(['list'])).toMatchObject({ code: 0, stdout: 'another\nslack-bot\n' });
    // What was stored is exactly what was piped, less the newline `echo` adds.
    const database = await openDatabase({ dataDir: join(dir, 'data') });
    try {
      expect(await new Vault({ db: database.db, passphrase: KEY }).get('slack-bot')).toBe(SECRET);
    } finally {
      await database.close();
    }
  });

  it('set again (replaces) and rm', async () => {
    expect(await vault(['set', 'another'], { stdin: 'changed-value' })).toMatchObject({
      code: 0,
      stdout: 'updated secret "another"; refer to it as vault://another\n',
    });
    expect(await vault(['rm', 'another'])).toMatchObject({ code: 0, stdout: 'removed secret "another"\n' });
    expect(await vault(['list'])).toMatchObject({ code: 0, stdout: 'slack-bot\n' });
  });

  it('clear errors from the vault: wrong key, unknown name', async () => {
    const wrong = await vault(['list'], { key: 'not the passphrase' });
    expect(wrong).toMatchObject({ code: 1, stdout: '' });
    expect(wrong.stderr).toBe(
      'kazma: KAZMA_VAULT_KEY does not open this vault: it is not the passphrase the vault was created with. Set the original passphrase; the secrets cannot be recovered without it.\n',
    );
    const unknown = await vault(['rm', 'nope']);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toContain('kazma: There is no secret named "nope" in the vault. Stored: slack-bot.');
  });

  it('clear errors before the database opens: no key, nothing piped, bad usage', async () => {
    const none = await vault(['list'], { key: undefined });
    expect(none.code).toBe(1);
    expect(none.stderr).toContain(
      'kazma: kazma vault list needs the secret vault, which is disabled: set KAZMA_VAULT_KEY',
    );
    const empty = await vault(['set', 'x']);
    expect(empty.code).toBe(2);
    expect(empty.stderr).toContain('nothing on stdin; pipe the value in');
    for (const args of [['set'], ['list', 'extra'], ['frobnicate'], []]) expect((await vault(args)).code).toBe(2);
  });

  it('says so when a running Kazma holds the embedded database', async () => {
    // The lock names a live process (this test's), as `kazma start` would.
    mkdirSync(join(dir, 'data'), { recursive: true });
    writeFileSync(join(dir, 'data', 'kazma.lock'), String(process.pid));
    try {
      const held = await vault(['list']);
      expect(held.code).toBe(1);
      expect(held.stderr).toContain(`Another Kazma (pid ${process.pid}) is already using`);
      expect(held.stderr).toContain('stop the running Kazma first');
    } finally {
      rmSync(join(dir, 'data', 'kazma.lock'), { force: true });
    }
  });

  it('kazma start stops at a vault:// pointer it cannot resolve, naming the key (exit 2)', async () => {
    const other = writeConfig(
      'data_dir: ./data\naccess:\n  operators: [{ name: maya, console: maya, api_token: "vault://maya-api" }]\n',
    );
    await seedPgliteDataDir(join(other.dir, 'data'));
    try {
      const result = await runKazma(['start', '--config', other.path], {
        cwd: other.dir,
        env: { KAZMA_VAULT_KEY: KEY, KAZMA_CONFIG: undefined },
      });
      expect(result.code).toBe(2);
      expect(result.stderr).toContain(
        'access.operators[0].api_token: vault://maya-api cannot be resolved: There is no secret named "maya-api" in the vault.',
      );
    } finally {
      rmSync(other.dir, { recursive: true, force: true });
    }
  });
});
