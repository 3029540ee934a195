import { describe, expect, it } from 'vitest';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { runKazma, writeConfig } from '../helpers/kazma-process.ts';
import { REPO_ROOT } from '../helpers/repo-root.ts';

describe('kazma config check', () => {
  it('accepts the tracked kazma.yaml (every platform disabled)', async () => {
    const result = await runKazma(['config', 'check', '--config', 'kazma.yaml']);
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('platforms: none enabled');
  });

  it.each([
    ['a wrong type', 'http:\n  port: eighty\n', 'http.port:'],
    [
      'an unknown key, with a did-you-mean',
      'telegram:\n  tokn: abc\n',
      'telegram.tokn: unknown key (did you mean "token"?)',
    ],
    ['an unknown section', 'telegrm: {}\n', 'telegrm: unknown key (did you mean "telegram"?)'],
    [
      'a missing environment variable',
      'telegram:\n  enabled: true\n  token: "${KAZMA_TEST_UNSET_TOKEN}"\n',
      'telegram.token: environment variable KAZMA_TEST_UNSET_TOKEN is not set',
    ],
    ['a bad duration', 'approvals:\n  timeout: soon\n', 'approvals.timeout: "soon" is not a duration'],
    [
      'a size that is not one',
      'tools:\n  shell:\n    memory: lots\n',
      'tools.shell.memory: "lots" is not a size (use e.g. 512MB or 2GB)',
    ],
    [
      'a platform enabled without its token',
      'discord:\n  enabled: true\n',
      'discord.token: required when discord.enabled is true',
    ],
    [
      'Slack without its bot token',
      'slack:\n  enabled: true\n  signing_secret: s3cret\n',
      'slack.token: required when slack.enabled is true (set SLACK_BOT_TOKEN to the Bot User OAuth Token (xoxb-…))',
    ],
    [
      'Slack in http mode without a signing secret',
      'slack:\n  enabled: true\n  token: xoxb-1\n',
      'slack.signing_secret: required when slack.mode is http (set SLACK_SIGNING_SECRET',
    ],
    [
      'Slack in socket mode without an app-level token',
      'slack:\n  enabled: true\n  token: xoxb-1\n  mode: socket\n  app_token: xoxb-not-an-app-token\n',
      'slack.app_token: must be an app-level token (xapp-…) with connections:write when slack.mode is socket (set SLACK_APP_TOKEN)',
    ],
    ['broken YAML', 'http: [\n', '(yaml)'],
    [
      'a short operator API token',
      'access:\n  operators: [{ name: maya, api_token: short }]\n',
      'access.operators[0].api_token: too short',
    ],
    [
      'two operators with one API token',
      'access:\n  operators: [{ name: maya, api_token: aaaaaaaaaaaaaaaaaaaa }, { name: ana, api_token: aaaaaaaaaaaaaaaaaaaa }]\n',
      'access.operators[1].api_token: the same token as access.operators[0].api_token',
    ],
    [
      'the read-only token equal to an operator token',
      'http: { api_token: aaaaaaaaaaaaaaaaaaaa }\naccess:\n  operators: [{ name: maya, api_token: aaaaaaaaaaaaaaaaaaaa }]\n',
      'http.api_token: the same token as access.operators[0].api_token',
    ],
  ])('rejects %s, naming the key path', async (_name, yaml, expected) => {
    const { path } = writeConfig(yaml);
    const result = await runKazma(['config', 'check', '--config', path], {
      env: { KAZMA_TEST_UNSET_TOKEN: undefined },
    });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(expected);
  });

  it('accepts a vault:// operator API token (resolved, and checked again, at start)', async () => {
    const { path } = writeConfig('access:\n  operators: [{ name: maya, api_token: "vault://maya-api" }]\n');
    const result = await runKazma(['config', 'check', '--config', path]);
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
  });

  it('substitutes ${VAR} and ${VAR:-default} from the environment', async () => {
    const { path } = writeConfig('http:\n  port: "${KAZMA_TEST_PORT:-9999}"\ndata_dir: "${KAZMA_TEST_DIR}"\n');
    const result = await runKazma(['config', 'check', '--config', path], {
      env: { KAZMA_TEST_DIR: '/tmp/kazma-subst' },
    });
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('data_dir:  /tmp/kazma-subst');
  });

  it('fails clearly when the named file does not exist: one line, the path said once', async () => {
    const result = await runKazma(['config', 'check', '--config', '/nonexistent/kazma.yaml']);
    expect(result.code).toBe(2);
    expect(result.stderr.trim()).toBe('kazma: no such file: /nonexistent/kazma.yaml');
  });

  it('names the file it was given, and points a YAML error at its line without a dangling colon', async () => {
    const { dir } = writeConfig('');
    writeFileSync(join(dir, 'broken.yaml'), 'tools:\n  disabled: [a\n');
    const result = await runKazma(['config', 'check', '--config', 'broken.yaml'], { cwd: dir });
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(
      /^kazma: broken\.yaml is not valid:\n {2}\(yaml\) \(line 3\): Flow sequence .*[^:]\n/,
    );
  });

  it('prints its version for --version, -v and version, and the command list for a bare kazma, each with exit 0', async () => {
    const { version } = JSON.parse(readFileSync(join(REPO_ROOT, 'package.json'), 'utf8')) as { version: string };
    for (const args of [['--version'], ['-v'], ['version']]) {
      const result = await runKazma(args);
      expect([result.code, result.stdout.trim()]).toEqual([0, `kazma ${version}`]);
    }
    const bare = await runKazma([]);
    expect(bare.code).toBe(0);
    expect(bare.stdout).toMatch(/^Usage: kazma <command> \[options\]\n\nCommands:\n[\s\S]* {2}worker /);
  });

  it('prints --help for each subcommand', async () => {
    for (const args of [['start'], ['worker'], ['migrate'], ['config', 'check'], ['doctor']]) {
      const result = await runKazma([...args, '--help']);
      expect(result.code).toBe(0);
      expect(result.stdout).toContain(`Usage: kazma ${args.join(' ')}`);
    }
  });
});
