import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { shellTool } from '../../src/core/tools/builtin/shell.ts';
import { ToolRegistry } from '../../src/core/tools/registry.ts';
import { isSecretEnv, scrubEnv } from '../../src/core/vault/child-env.ts';
import { makeWorkspace } from './fixture.ts';

const run = promisify(execFile);
const planted = {
  ...process.env,
  KAZMA_SECRET: 'kazma-secret-value',
  FOO_TOKEN: 'foo-token-value',
  APP_LINK: 'postgres://u:pw@h/db',
  PLAIN_SETTING: 'kept',
};

let ws: Awaited<ReturnType<typeof makeWorkspace>>;
beforeAll(async () => {
  ws = await makeWorkspace();
});
afterAll(() => ws.cleanup());

function expectScrubbed(printed: string): void {
  expect(printed).not.toContain('KAZMA_SECRET');
  expect(printed).not.toContain('FOO_TOKEN');
  expect(printed).not.toContain('postgres://u:pw@h/db');
  expect(printed).toMatch(/^PATH=/m);
  expect(printed).toMatch(/^PLAIN_SETTING=kept$/m);
}

describe('child process environment', () => {
  it('a real child started with scrubEnv sees no secrets but keeps PATH', async () => {
    const script = 'for (const [k, v] of Object.entries(process.env)) console.log(`${k}=${v}`)';
    const { stdout } = await run(process.execPath, ['-e', script], { env: scrubEnv(planted) });
    expectScrubbed(stdout);
  });

  it('the shell tool passes the scrubbed environment to its child', async () => {
    const registry = new ToolRegistry().register(shellTool({ allow: ['printenv'] }));
    const r = await registry.execute('shell', { command: 'printenv' }, { ...ws.ctx, env: planted });
    expect(r.ok).toBe(true);
    expectScrubbed(r.ok ? r.output : '');
  });

  it.each([
    ['KAZMA_API_TOKEN', 'x'], ['GITHUB_TOKEN', 'x'], ['OPENAI_API_KEY', 'x'], ['STRIPE_KEY', 'x'], ['APP_SECRET', 'x'],
    ['DB_PASSWORD', 'x'], ['SMTP_PASS', 'x'], ['GOOGLE_APPLICATION_CREDENTIALS', 'x'], ['DATABASE_URL', 'x'],
    ['REDIS_URL', 'x'], ['PGPASSWORD', 'x'], ['AWS_SECRET_ACCESS_KEY', 'x'], ['AWS_SESSION_TOKEN', 'x'],
    ['MY_APIKEY', 'x'], ['UPSTREAM', 'https://user:hunter2@example.com/x'],
  ])('drops %s', (name, value) => {
    expect(isSecretEnv(name, value)).toBe(true);
  });

  it.each([
    ['PATH', '/usr/bin'], ['HOME', '/home/k'], ['LANG', 'C.UTF-8'], ['TERM', 'xterm'], ['HOMEPAGE', 'https://example.com/a'],
    ['TZ', 'UTC'],
  ])('keeps %s', (name, value) => {
    expect(isSecretEnv(name, value)).toBe(false);
  });
});
