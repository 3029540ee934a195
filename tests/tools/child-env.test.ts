import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { shellTool } from '../../src/core/tools/builtin/shell.ts';
import { ToolRegistry } from '../../src/core/tools/registry.ts';
import { childEnv, isSecretEnv } from '../../src/core/secrets/child-env.ts';
import { makeWorkspace } from './fixture.ts';

const run = promisify(execFile);
// Names the issue lists as reaching children under the old denylist, plus ordinary secrets.
const LEAKS = {
  GITHUB_PAT: 'ghp_leak',
  PGPASS: 'pgpass-leak',
  SSH_AUTH_SOCK: '/tmp/ssh-leak/agent.1',
  LD_PRELOAD: '/nonexistent/leak.so',
  GIT_CONFIG_PARAMETERS: "'core.pager'='leak'",
  GIT_SSH_COMMAND: 'ssh -o ProxyCommand=leak',
  KAZMA_SECRET: 'kazma-secret-value',
  FOO_TOKEN: 'foo-token-value',
  APP_LINK: 'postgres://u:pw@h/db',
};
const planted = {
  ...process.env,
  ...LEAKS,
  PLAIN_SETTING: 'plain',
  LC_ALL: 'C',
  TZ: 'UTC',
  TERM: 'dumb',
  TMPDIR: '/tmp',
  MY_TOOL_HOME: '/opt/tool',
};

let ws: Awaited<ReturnType<typeof makeWorkspace>>;
beforeAll(async () => {
  ws = await makeWorkspace();
});
afterAll(() => ws.cleanup());

function expectAllowlisted(printed: string, extra: string[] = []): void {
  for (const [name, value] of Object.entries(LEAKS)) {
    expect(printed, name).not.toContain(`${name}=`);
    expect(printed, name).not.toContain(value);
  }
  for (const name of ['PATH', 'LC_ALL', 'TZ', 'TERM', ...extra]) expect(printed).toMatch(new RegExp(`^${name}=`, 'm'));
  if (!extra.includes('PLAIN_SETTING')) expect(printed).not.toContain('PLAIN_SETTING');
}

describe('child process environment: an allowlist', () => {
  it('a real child started with childEnv sees only PATH, HOME, LANG, LC_*, TZ, TERM, TMPDIR', async () => {
    const script = 'for (const [k, v] of Object.entries(process.env)) console.log(`${k}=${v}`)';
    const { stdout } = await run(process.execPath, ['-e', script], { env: childEnv(planted) });
    expectAllowlisted(stdout, ['HOME', 'TMPDIR']);
    expect(Object.keys(childEnv(planted)).sort()).toEqual(
      ['HOME', 'LANG', 'LC_ALL', 'PATH', 'TERM', 'TMPDIR', 'TZ'].filter(
        (name) => planted[name as keyof typeof planted] !== undefined,
      ),
    );
  });

  it('names in tools.env_allow pass, exactly or by a trailing *', () => {
    expect(childEnv(planted, { allow: ['PLAIN_SETTING', 'MY_*'] })).toMatchObject({
      PLAIN_SETTING: 'plain',
      MY_TOOL_HOME: '/opt/tool',
    });
    expect(childEnv(planted, { allow: ['PLAIN'] })).not.toHaveProperty('PLAIN_SETTING');
  });

  it('the shell tool builds its child environment from the allowlist, plus tools.env_allow', async () => {
    for (const sandbox of ['bwrap', 'off'] as const) {
      const strict = new ToolRegistry().register(shellTool({ allow: ['printenv'], sandbox }));
      const r = await strict.execute('shell', { command: 'printenv' }, { ...ws.ctx, env: planted });
      expect(r.ok, JSON.stringify(r)).toBe(true);
      expectAllowlisted(r.ok ? r.output : '');
      const allowing = new ToolRegistry().register(
        shellTool({ allow: ['printenv'], sandbox, envAllow: ['PLAIN_SETTING'] }),
      );
      const r2 = await allowing.execute('shell', { command: 'printenv' }, { ...ws.ctx, env: planted });
      expectAllowlisted(r2.ok ? r2.output : '', ['PLAIN_SETTING']);
    }
  });

  it.each([
    ['KAZMA_API_TOKEN', 'x'],
    ['GITHUB_TOKEN', 'x'],
    ['OPENAI_API_KEY', 'x'],
    ['STRIPE_KEY', 'x'],
    ['APP_SECRET', 'x'],
    ['DB_PASSWORD', 'x'],
    ['SMTP_PASS', 'x'],
    ['GOOGLE_APPLICATION_CREDENTIALS', 'x'],
    ['DATABASE_URL', 'x'],
    ['REDIS_URL', 'x'],
    ['PGPASSWORD', 'x'],
    ['AWS_SECRET_ACCESS_KEY', 'x'],
    ['AWS_SESSION_TOKEN', 'x'],
    ['MY_APIKEY', 'x'],
    ['UPSTREAM', 'https://user:hunter2@example.com/x'],
  ])('isSecretEnv still recognises %s as a credential', (name, value) => {
    expect(isSecretEnv(name, value)).toBe(true);
  });
});
