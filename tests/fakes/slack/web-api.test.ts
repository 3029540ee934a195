// The fake's Web API, response URLs and signer checked directly (real WebClient, plain fetch and a
// recording endpoint), covering what the Bolt-driven suite does not: auth, JSON bodies, ownership
// errors, response_url semantics, failure injection and the event envelope.
import { afterEach, describe, expect, it } from 'vitest';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Hono } from 'hono';
import { serve } from '@hono/node-server';
import { isValidSlackRequest, webApi } from '@slack/bolt';
import { startFakeSlack, type FakeSlack } from './index.ts';

let fake: FakeSlack;
const extra: Array<() => Promise<void>> = [];
afterEach(async () => {
  await fake.close();
  for (const f of extra.splice(0)) await f();
});

async function start() {
  fake = await startFakeSlack({ botToken: 'xoxb-test', teamId: 'T0TEST' });
  return new webApi.WebClient(fake.botToken, {
    slackApiUrl: fake.apiUrl,
    retryConfig: { retries: 2, minTimeout: 0, maxTimeout: 0 },
    logLevel: webApi.LogLevel.ERROR,
  });
}
const raw = (method: string, body: string, headers: Record<string, string>) =>
  fetch(`${fake.apiUrl}${method}`, { method: 'POST', body, headers }).then(async (r) => ({
    status: r.status,
    json: (await r.json()) as Record<string, unknown>,
  }));
const failure = (p: Promise<unknown>) =>
  p.then(
    () => ({ code: 'none', data: { error: 'none' } }),
    (e: { code: string; data?: { error: string } }) => e,
  );

/** A Request URL that only records what arrives, to inspect the signer's requests as sent. */
async function recorder() {
  const got: Array<{ headers: Headers; raw: string }> = [];
  const web = new Hono().post('/in', async (c) => {
    got.push({ headers: c.req.raw.headers, raw: await c.req.text() });
    return c.body(null, 200);
  });
  const s = await new Promise<Server>((r) => {
    const srv = serve({ fetch: web.fetch, port: 0, hostname: '127.0.0.1' }, () => r(srv as Server));
  });
  extra.push(
    () =>
      new Promise((r) => {
        s.closeAllConnections();
        s.close(() => r());
      }),
  );
  return { got, url: `http://127.0.0.1:${(s.address() as AddressInfo).port}/in` };
}

describe('fake Slack Web API', () => {
  it('auth: wrong token invalid_auth, none not_authed, unknown method unknown_method — all HTTP 200', async () => {
    await start();
    const wrong = new webApi.WebClient('xoxb-wrong', { slackApiUrl: fake.apiUrl, logLevel: webApi.LogLevel.ERROR });
    expect(await failure(wrong.auth.test())).toMatchObject({
      code: 'slack_webapi_platform_error',
      data: { error: 'invalid_auth' },
    });
    expect(await raw('auth.test', '', { 'content-type': 'application/x-www-form-urlencoded' })).toEqual({
      status: 200,
      json: { ok: false, error: 'not_authed' },
    });
    expect((await raw('chat.fly', '', { authorization: 'Bearer xoxb-test' })).json.error).toBe('unknown_method');
    expect(fake.messages('C0X')).toEqual([]);
  });

  it('accepts JSON bodies, decodes form JSON strings, assigns block ids, rejects malformed blocks', async () => {
    const client = await start();
    const blocks = [{ type: 'section', text: { type: 'mrkdwn', text: 'hi' } }];
    const r = await raw('chat.postMessage', JSON.stringify({ channel: 'C0OPS', text: 'hi', blocks }), {
      authorization: 'Bearer xoxb-test',
      'content-type': 'application/json; charset=utf-8',
    });
    expect(r.json).toMatchObject({ ok: true, channel: 'C0OPS', ts: '1700000000.000001' });
    expect(fake.messages('C0OPS')[0]!.blocks![0]!.block_id).toEqual(expect.any(String));
    const form = new URLSearchParams({ channel: 'C0OPS', text: 'x', blocks: '[{"type":' }).toString();
    expect(
      (
        await raw('chat.postMessage', form, {
          authorization: 'Bearer xoxb-test',
          'content-type': 'application/x-www-form-urlencoded',
        })
      ).json.error,
    ).toBe('invalid_blocks_format');
    expect((await failure(client.chat.postMessage({ channel: 'nowhere', text: 'x' }))).data?.error).toBe(
      'channel_not_found',
    );
    expect(fake.messages('C0OPS')).toHaveLength(1);
  });

  it('ephemeral, delete, ownership errors, conversations.info and users.info', async () => {
    const client = await start();
    const eph = await client.chat.postEphemeral({ channel: 'C0OPS', user: 'U0ANN', text: 'psst' });
    expect(fake.ephemerals('C0OPS', 'U0ANN')).toMatchObject([
      { ts: eph.message_ts, text: 'psst', via: 'chat.postEphemeral' },
    ]);
    const sent = await fake.signer.sendMessage((await recorder()).url, {
      channel: 'C0OPS',
      user: 'U0ANN',
      text: 'mine',
    });
    expect((await failure(client.chat.update({ channel: 'C0OPS', ts: sent.ts, text: 'x' }))).data?.error).toBe(
      'cant_update_message',
    );
    expect((await failure(client.chat.delete({ channel: 'C0OPS', ts: sent.ts }))).data?.error).toBe(
      'cant_delete_message',
    );
    const own = await client.chat.postMessage({ channel: 'C0OPS', text: 'bye' });
    await client.chat.delete({ channel: 'C0OPS', ts: own.ts! });
    expect(fake.messages('C0OPS').map((m) => m.text)).toEqual(['mine']);
    expect((await client.conversations.info({ channel: 'D0DM' })).channel).toMatchObject({
      id: 'D0DM',
      is_im: true,
      is_channel: false,
    });
    expect((await client.users.info({ user: fake.identity.botUserId })).user).toMatchObject({
      is_bot: true,
      team_id: 'T0TEST',
    });
  });

  it('response_url: replace_original edits, delete_original removes, bad bodies 400, unknown URL 404', async () => {
    const client = await start();
    const { url } = await recorder();
    const button = {
      type: 'actions',
      elements: [{ type: 'button', action_id: 'go', value: 'v', text: { type: 'plain_text', text: 'Go' } }],
    };
    const post = await client.chat.postMessage({ channel: 'C0OPS', text: 'q', blocks: [button] });
    const click = await fake.signer.sendBlockAction(url, {
      channel: 'C0OPS',
      user: 'U0ANN',
      messageTs: post.ts!,
      actionId: 'go',
    });
    const to = (body: unknown, u = click.responseUrl) =>
      fetch(u, { method: 'POST', body: JSON.stringify(body), headers: { 'content-type': 'application/json' } }).then(
        (r) => r.status,
      );
    expect(await to({ replace_original: true, text: 'done' })).toBe(200);
    expect(fake.messages('C0OPS')[0]).toMatchObject({ text: 'done', edits: [{ text: 'q' }] });
    expect(await to({ replace_original: true })).toBe(400);
    fake.failNext('response_url', { status: 500 });
    expect(await to({ text: 'x' })).toBe(500);
    expect(await to({ delete_original: true })).toBe(200);
    expect(fake.messages('C0OPS')).toEqual([]);
    expect(await to({ text: 'x' }, `${fake.baseUrl}/response/unknown`)).toBe(404);
    expect(fake.calls.of('response_url').map((c) => c.status)).toEqual([200, 400, 500, 200, 404]);
  });

  it('failNext: 429 carries Retry-After, 5xx is retried, times counts down; waitFor times out naming calls', async () => {
    const client = await start();
    const strict = new webApi.WebClient(fake.botToken, {
      slackApiUrl: fake.apiUrl,
      rejectRateLimitedCalls: true,
      logLevel: webApi.LogLevel.ERROR,
    });
    fake.failNext('chat.postMessage', { status: 429, headers: { 'Retry-After': '7' } });
    expect(await failure(strict.chat.postMessage({ channel: 'C0OPS', text: 'x' }))).toMatchObject({
      code: 'slack_webapi_rate_limited_error',
      retryAfter: 7,
    });
    fake.failNext('chat.postMessage', { status: 503, times: 2 });
    expect((await client.chat.postMessage({ channel: 'C0OPS', text: 'x' })).ok).toBe(true);
    expect(fake.calls.of('chat.postMessage').map((c) => c.status)).toEqual([429, 503, 503, 200]);
    expect((await fake.calls.waitFor('chat.postMessage', (c) => c.ok, 50)).seq).toBe(4); // already received: resolves at once
    await expect(fake.calls.waitFor('chat.update', undefined, 50)).rejects.toThrow(
      /no matching chat.update.*chat.postMessage\(ratelimited\)/,
    );
  });

  it('signer: event envelope, retry headers and a signature Bolt verifies; slash form fields', async () => {
    await start();
    const { got, url } = await recorder();
    const first = await fake.signer.sendEvent(url, { type: 'reaction_added', user: 'U0ANN' });
    await fake.signer.sendEvent(
      url,
      { type: 'reaction_added', user: 'U0ANN' },
      { eventId: first.eventId, retryNum: 1 },
    );
    const [a, b] = got;
    expect(JSON.parse(a!.raw)).toMatchObject({
      type: 'event_callback',
      team_id: 'T0TEST',
      event_id: first.eventId,
      authorizations: [{ user_id: fake.identity.botUserId, is_bot: true }],
    });
    expect(JSON.parse(b!.raw).event_id).toBe(first.eventId);
    expect([
      a!.headers.get('x-slack-retry-num'),
      b!.headers.get('x-slack-retry-num'),
      b!.headers.get('x-slack-retry-reason'),
    ]).toEqual([null, '1', 'http_timeout']);
    const verify = (raw: string, h: Headers, secret = fake.signingSecret) =>
      isValidSlackRequest({
        signingSecret: secret,
        body: raw,
        headers: {
          'x-slack-signature': h.get('x-slack-signature')!,
          'x-slack-request-timestamp': Number(h.get('x-slack-request-timestamp')),
        },
      });
    expect([verify(a!.raw, a!.headers), verify(a!.raw, a!.headers, 'other'), verify(`${a!.raw} `, a!.headers)]).toEqual(
      [true, false, false],
    );
    await fake.signer.sendSlashCommand(url, { command: '/kazma', text: 'a b&c', user: 'U0ANN', channel: 'C0OPS' });
    const form = new URLSearchParams(got[2]!.raw);
    expect([
      form.get('command'),
      form.get('text'),
      form.get('user_id'),
      form.get('response_url')?.startsWith(`${fake.baseUrl}/response/`),
    ]).toEqual(['/kazma', 'a b&c', 'U0ANN', true]);
  });
});
