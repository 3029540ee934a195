// slack-app-manifest.yaml is what users install: it must ask for the scopes and events the adapter
// relies on and point every URL at the route the adapter serves.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { EVENTS_PATH } from '../../../src/adapters/slack/index.ts';
import { REPO_ROOT } from '../../helpers/repo-root.ts';

interface Manifest {
  features: {
    slash_commands: Array<{ command: string; url: string }>;
    assistant_view?: { assistant_description: string };
  };
  oauth_config: { scopes: { bot: string[] } };
  settings: {
    event_subscriptions: { request_url: string; bot_events: string[] };
    interactivity: { is_enabled: boolean; request_url: string };
  };
}

describe('slack-app-manifest.yaml', () => {
  const manifest = parse(readFileSync(join(REPO_ROOT, 'slack-app-manifest.yaml'), 'utf8')) as Manifest;

  it('asks for the scopes and events Kazma uses', () => {
    expect([...manifest.oauth_config.scopes.bot].sort()).toEqual([
      'app_mentions:read',
      'assistant:write',
      'channels:history',
      'chat:write',
      'commands',
      'files:read',
      'files:write',
      'groups:history',
      'im:history',
      'im:read',
      'users:read',
    ]);
    // Streamed answers (chat.startStream) and "is thinking…" need Slack's Agents & AI Apps feature.
    expect(manifest.features.assistant_view?.assistant_description).toBeTruthy();
    expect([...manifest.settings.event_subscriptions.bot_events].sort()).toEqual([
      'app_mention',
      'message.channels',
      'message.im',
    ]);
  });

  it('points events, interactivity and /kazma at the one Request URL', () => {
    const url = `https://YOUR_HOST${EVENTS_PATH}`;
    expect(manifest.settings.event_subscriptions.request_url).toBe(url);
    expect(manifest.settings.interactivity).toEqual({ is_enabled: true, request_url: url });
    expect(manifest.features.slash_commands).toEqual([expect.objectContaining({ command: '/kazma', url })]);
  });
});
