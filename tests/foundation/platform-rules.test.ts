// A platform section's rules live once (core/config/platform-rules.ts): loading kazma.yaml applies them
// to enabled platforms, and the Slack adapter, built directly, refuses with the very same issues.
import { Hono } from 'hono';
import { describe, expect, it } from 'vitest';
import { SlackPlatform } from '../../src/adapters/slack/index.ts';
import { configSchema, enabledPlatformIssues, parseConfig } from '../../src/core/config/index.ts';
import { createLogger } from '../../src/core/log/index.ts';

const slack = (over: Record<string, unknown>) => configSchema.parse({ slack: { enabled: true, ...over } }).slack;
const stubCore = {
  pipeline: { accept: async () => ({ status: 'accepted' as const, done: Promise.resolve('handled' as const) }) },
  attachSurface: () => () => {},
};

describe("Slack's token rules", () => {
  it('pass a working http setup and a working socket setup', () => {
    expect(enabledPlatformIssues('slack', slack({ token: 'xoxb-1', signing_secret: 's3cret' }))).toEqual([]);
    expect(enabledPlatformIssues('slack', slack({ token: 'xoxb-1', mode: 'socket', app_token: 'xapp-1-A' }))).toEqual(
      [],
    );
  });

  it('name each missing credential of the mode, with its key', () => {
    expect(enabledPlatformIssues('slack', slack({ mode: 'http' }))).toEqual([
      'slack.token: required when slack.enabled is true (set SLACK_BOT_TOKEN to the Bot User OAuth Token (xoxb-…))',
      'slack.signing_secret: required when slack.mode is http (set SLACK_SIGNING_SECRET from Basic Information → App Credentials)',
    ]);
    expect(enabledPlatformIssues('slack', slack({ token: 'xoxb-1', mode: 'socket', app_token: '' }))).toEqual([
      'slack.app_token: must be an app-level token (xapp-…) with connections:write when slack.mode is socket (set SLACK_APP_TOKEN)',
    ]);
  });

  it('apply only to an enabled Slack', () => {
    expect(() => parseConfig('slack: { enabled: false, mode: socket }', { env: {}, baseDir: '.' })).not.toThrow();
  });

  it('are what the adapter refuses with when built directly', () => {
    const config = slack({
      token: 'xoxb-1',
      mode: 'socket',
      app_token: 'xoxb-wrong',
      api_url: 'http://127.0.0.1:9/api/',
    });
    const logger = createLogger({ level: 'silent', pretty: false });
    expect(() => new SlackPlatform({ config, core: stubCore, app: new Hono(), logger })).toThrow(
      expect.objectContaining({ code: 'config_invalid', issues: enabledPlatformIssues('slack', config) }),
    );
  });
});
