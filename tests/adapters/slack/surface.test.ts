// The Slack Surface against the fake Web API, without a core: what each call sends, how Slack's limits
// are kept, how failures are retried or reported. The platform is built with a stub core link.
import { Hono } from 'hono';
import { afterEach, describe, expect, it } from 'vitest';
import { SlackPlatform, type SlackPlatformOptions } from '../../../src/adapters/slack/index.ts';
import type { InboundEvent, Surface } from '../../../src/core/surface/index.ts';
import { createLogger } from '../../../src/core/log/index.ts';
import { LIMITS, startFakeSlack } from '../../fakes/slack/index.ts';
import { visibleMessage } from './visible.ts';

const logger = createLogger({ level: process.env.KAZMA_TEST_LOG ?? 'silent', pretty: false });
const cleanup: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const step of cleanup.splice(0).reverse()) await step();
});

async function setup(over: Partial<SlackPlatformOptions> & { token?: string; apiUrl?: string } = {}) {
  const fake = await startFakeSlack();
  cleanup.push(() => fake.close());
  const events: InboundEvent[] = [];
  let attached: Surface | undefined;
  const core = {
    pipeline: {
      accept: async (e: InboundEvent) => (
        events.push(e), { status: 'accepted' as const, done: Promise.resolve('handled' as const) }
      ),
    },
    attachSurface: (s: Surface) => ((attached = s), () => {}),
  };
  const config = {
    enabled: true,
    token: over.token ?? fake.botToken,
    signing_secret: fake.signingSecret,
    mode: 'http' as const,
    app_token: '',
    api_url: over.apiUrl ?? fake.apiUrl,
  };
  const merged = over.config ? { ...over.config, api_url: over.config.api_url || fake.apiUrl } : config;
  const platform = new SlackPlatform({
    core,
    app: new Hono(),
    logger,
    retry: { retries: 2, minTimeoutMs: 0, maxTimeoutMs: 0 },
    ...over,
    config: merged,
  });
  cleanup.push(() => platform.stop());
  return { fake, platform, surface: platform.surface, events, attached: () => attached };
}

const DM = 'D0MAYA';

describe('SlackSurface', () => {
  it('attaches itself, and start() learns who the bot is from auth.test', async () => {
    const { fake, platform, attached } = await setup();
    expect(attached()).toBe(platform.surface);
    await platform.start();
    expect(platform.me).toEqual({
      userId: fake.identity.botUserId,
      botId: fake.identity.botId,
      team: 'Fake Workspace',
      teamId: fake.identity.teamId,
      user: 'kazma',
    });
  });

  it('sends Markdown as mrkdwn section blocks, in the thread when the chat is one', async () => {
    const { fake, surface } = await setup();
    const ref = await surface.send(`slack:C0TEAM:1700000000.000001`, {
      text: '**Done** — see [the docs](https://e.com/?a=1&b=2) and `x < y`',
    });
    const [call] = fake.calls.of('chat.postMessage');
    expect(call!.args).toMatchObject({
      channel: 'C0TEAM',
      thread_ts: '1700000000.000001',
      text: '*Done* — see <https://e.com/?a=1&amp;b=2|the docs> and `x &lt; y`',
    });
    expect(call!.args.blocks).toEqual([{ type: 'section', text: { type: 'mrkdwn', text: call!.args.text } }]);
    expect(ref).toEqual({ chat: 'slack:C0TEAM:1700000000.000001', id: (call!.response as { ts: string }).ts });
  });

  it('splits a long reply into messages within 3000 per section, 50 blocks and 40,000 characters, in order', async () => {
    const { fake, surface } = await setup();
    const paragraphs = Array.from(
      { length: 120 },
      (_, i) => `Paragraph ${i}: ${'word '.repeat(180 + (i % 7) * 60).trim()}`,
    );
    const ref = await surface.send(`slack:${DM}`, { text: paragraphs.join('\n\n') });
    const posts = fake.calls.of('chat.postMessage');
    expect(posts.length).toBeGreaterThan(1);
    expect(posts.every((c) => c.ok)).toBe(true);
    for (const c of posts) {
      const blocks = c.args.blocks as Array<{ text: { text: string } }>;
      expect(blocks.length).toBeLessThanOrEqual(LIMITS.blocks);
      expect(blocks.every((b) => [...b.text.text].length <= LIMITS.sectionText)).toBe(true);
      expect([...String(c.args.text)].length).toBeLessThanOrEqual(LIMITS.text);
    }
    const shown = fake
      .messages(DM)
      .map((m) => visibleMessage(m).text)
      .join('\n')
      .split('\n')
      .filter((l) => l !== '');
    expect(shown).toEqual(paragraphs);
    expect(ref.id).toBe((posts[0]!.response as { ts: string }).ts);
  });

  it('posts a card as Block Kit and edits it with chat.update, buttons removed when settled', async () => {
    const { fake, surface } = await setup();
    const buttons = [
      { id: 'apv:g1:once', label: 'Approve', style: 'primary' as const },
      { id: 'apv:g1:deny', label: 'Deny', style: 'danger' as const },
    ];
    const ref = await surface.sendCard(`slack:${DM}`, {
      title: 'Approve write_file?',
      fields: [{ label: 'Tool', value: 'write_file' }],
      buttons,
    });
    const posted = fake.messages(DM)[0]!;
    expect(visibleMessage(posted)).toMatchObject({
      text: 'Approve write_file?\nTool\nwrite_file',
      buttons: ['Approve', 'Deny'],
    });
    await surface.editCard(ref, {
      title: 'Approval: write_file',
      fields: [{ label: 'Tool', value: 'write_file' }],
      buttons: [],
      footer: 'Approved once by Maya on Slack at 12:03 UTC',
    });
    expect(visibleMessage(fake.messages(DM)[0]!)).toEqual({
      text: 'Approval: write_file\nTool\nwrite_file\nApproved once by Maya on Slack at 12:03 UTC',
      bold: ['Approval: write_file', 'Tool'],
      buttons: [],
    });
    expect(fake.calls.of('chat.update')[0]!.args).toMatchObject({ channel: DM, ts: ref.id });
  });

  it('an edit of a card someone deleted is done, not retried for ever (as on Discord)', async () => {
    const { fake, surface } = await setup();
    const ref = await surface.sendCard(`slack:${DM}`, {
      title: 'Approve write_file?',
      fields: [],
      buttons: [{ id: 'apv:g1:once', label: 'Approve', style: 'primary' }],
    });
    // What chat.update answers for a message that is gone (before: a SlackApiError the outbox retried 8 times).
    fake.failNext('chat.update', { status: 200, body: { ok: false, error: 'message_not_found' } });
    await expect(
      surface.editCard(ref, { title: 'Approval', fields: [], buttons: [], footer: 'Denied by Omar' }),
    ).resolves.toBeUndefined();
    // Any other refusal still fails, for the outbox to retry.
    fake.failNext('chat.update', { status: 200, body: { ok: false, error: 'internal_error' } });
    await expect(
      surface.editCard(ref, { title: 'Approval', fields: [], buttons: [], footer: 'Denied by Omar' }),
    ).rejects.toThrow(/internal_error/);
  });

  it('replies privately with chat.postEphemeral in the chat’s thread when no response URL is open', async () => {
    const { fake, surface } = await setup();
    await surface.replyPrivately!(
      `slack:C0TEAM:1700000000.000001`,
      { platform: 'slack', id: 'U0LINA' },
      'only **you**',
    );
    expect(fake.ephemerals('C0TEAM', 'U0LINA').map((e) => [e.text, e.thread_ts, e.via])).toEqual([
      ['only *you*', '1700000000.000001', 'chat.postEphemeral'],
    ]);
  });

  it('retries a 429 after its Retry-After and 5xx answers, delivering once', async () => {
    const { fake, surface } = await setup();
    fake.failNext('chat.update', { status: 429, headers: { 'Retry-After': '1' } });
    fake.failNext('chat.postMessage', { status: 500 });
    fake.failNext('chat.postMessage', { status: 503 });
    const ref = await surface.send(`slack:${DM}`, { text: 'hello' });
    expect(fake.calls.of('chat.postMessage').map((c) => c.status)).toEqual([500, 503, 200]);
    const started = Date.now();
    await surface.editCard(ref, { title: 'now a card', fields: [], buttons: [] });
    const updates = fake.calls.of('chat.update');
    expect(updates.map((c) => c.status)).toEqual([429, 200]);
    expect(updates[1]!.at - updates[0]!.at).toBeGreaterThanOrEqual(950);
    expect(Date.now() - started).toBeLessThan(3000);
    expect(fake.messages(DM)).toHaveLength(1);
  });

  it('reports refusals and unreachable Slack as errors that say what to do', async () => {
    const { surface } = await setup();
    await expect(surface.send('slack:X1', { text: 'hi' })).rejects.toMatchObject({
      name: 'SlackApiError',
      code: 'slack_api',
      error: 'channel_not_found',
      message: expect.stringMatching(/Slack refused chat.postMessage: channel_not_found\. Check the channel id/),
    });
    // A channel that is not there is a refusal for good: the outbox marks the delivery failed, not retried.
    await expect(surface.send('slack:X1', { text: 'hi' })).rejects.toMatchObject({ permanent: true });
    // An edit of a message that is gone is done (see 'an edit of a card someone deleted').
    await expect(
      surface.editCard({ chat: `slack:${DM}`, id: '1.2' }, { title: 't', fields: [], buttons: [] }),
    ).resolves.toBeUndefined();
    const { platform } = await setup({ retry: { retries: 0, minTimeoutMs: 0 }, apiUrl: 'http://127.0.0.1:9/api/' });
    await expect(platform.start()).rejects.toMatchObject({
      name: 'SlackTransportError',
      code: 'slack_unreachable',
      message: expect.stringMatching(/auth\.test at http:\/\/127\.0\.0\.1:9\/api\//),
    });
  });

  it('fails to start with a wrong token, naming the fix', async () => {
    const { platform } = await setup({ token: 'xoxb-wrong' });
    await expect(platform.start()).rejects.toMatchObject({
      code: 'slack_unauthorized',
      message: expect.stringMatching(
        /invalid_auth\. The bot token is wrong or revoked: set slack\.token \(SLACK_BOT_TOKEN\)/,
      ),
    });
  });

  it('in socket mode asks slack.api_url for a connection with the app token; a refused one fails start naming the fix', async () => {
    // Only the wiring: the fake Slack has no Socket Mode WebSocket, so a connected session is not tested.
    const { fake, platform } = await setup({
      config: {
        enabled: true,
        token: 'xoxb-fake-0000-token',
        signing_secret: '',
        mode: 'socket',
        app_token: 'xapp-1-not-accepted',
        api_url: '',
      },
    });
    expect(platform.receiver).toBeUndefined();
    await expect(platform.start()).rejects.toMatchObject({
      name: 'SlackApiError',
      message: expect.stringMatching(/apps\.connections\.open: invalid_auth\. Socket Mode needs slack\.app_token/),
    });
    expect(fake.calls.all.map((c) => [c.method, c.error])).toEqual([
      ['auth.test', undefined],
      ['apps.connections.open', 'invalid_auth'],
    ]);
  });

  it('refuses a configuration the mode cannot work with', async () => {
    await expect(
      setup({
        config: {
          enabled: true,
          token: 'xoxb-1',
          signing_secret: '',
          mode: 'http',
          app_token: '',
          api_url: 'http://127.0.0.1:9/api/',
        },
      }),
    ).rejects.toThrow(/slack\.signing_secret: required when slack\.mode is http/);
    await expect(
      setup({
        config: {
          enabled: true,
          token: 'xoxb-1',
          signing_secret: '',
          mode: 'socket',
          app_token: 'xoxb-no',
          api_url: 'http://127.0.0.1:9/api/',
        },
      }),
    ).rejects.toThrow(/app-level token \(xapp-…\)/);
  });
});
