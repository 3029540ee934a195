// Drives the REAL @slack/bolt App against the fake: inbound through a minimal hono receiver (the
// platform-notes recipe, verifying with Bolt's own isValidSlackRequest), outbound through WebClient.
// If the fake's wire formats, signatures or errors drift from Slack's, Bolt is what notices.
import { afterEach, describe, expect, it } from 'vitest';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Hono, type Context } from 'hono';
import { serve } from '@hono/node-server';
import { App, LogLevel, isValidSlackRequest, type Receiver, type ReceiverEvent } from '@slack/bolt';
import { startFakeSlack } from './index.ts';

class HonoReceiver implements Receiver {
  private bolt?: App;
  /** Bodies handed to Bolt; forged requests must never get here. */
  readonly dispatched: Record<string, unknown>[] = [];
  constructor(private readonly secret: string) {}
  init(app: App): void {
    this.bolt = app;
  }
  start(): Promise<void> {
    return Promise.resolve();
  }
  stop(): Promise<void> {
    return Promise.resolve();
  }

  private verified(c: Context, raw: string): boolean {
    const sig = c.req.header('x-slack-signature');
    const ts = Number(c.req.header('x-slack-request-timestamp'));
    if (!sig || !Number.isFinite(ts)) return false;
    if (ts - Date.now() / 1000 > 300) return false; // Bolt only rejects stale timestamps, not future ones
    return isValidSlackRequest({
      signingSecret: this.secret,
      body: raw,
      headers: { 'x-slack-signature': sig, 'x-slack-request-timestamp': ts },
    });
  }

  handler = async (c: Context): Promise<Response> => {
    const raw = await c.req.text(); // verify the exact bytes before parsing
    const form = c.req.header('content-type')?.includes('urlencoded') ? new URLSearchParams(raw) : null;
    if (form?.get('ssl_check') === '1') return c.body(null, 200);
    if (!this.verified(c, raw)) return c.text('invalid signature', 401);
    const body = (
      form ? (form.has('payload') ? JSON.parse(form.get('payload')!) : Object.fromEntries(form)) : JSON.parse(raw)
    ) as Record<string, unknown>;
    if (body.type === 'url_verification') return c.json({ challenge: body.challenge });
    this.dispatched.push(body);
    let acked = false;
    let settle!: (r: Response) => void;
    const res = new Promise<Response>((r) => (settle = r));
    const timer = setTimeout(() => {
      if (!acked) {
        acked = true;
        settle(c.body(null, 404));
      }
    }, 3001);
    const ack: ReceiverEvent['ack'] = async (r?: unknown) => {
      if (acked) throw new Error('double ack');
      acked = true;
      clearTimeout(timer);
      settle(r === undefined || r === '' ? c.body(null, 200) : typeof r === 'string' ? c.text(r) : c.json(r as object));
    };
    const retryNum = Number(c.req.header('x-slack-retry-num')) || undefined;
    this.bolt!.processEvent({
      body,
      ack,
      ...(retryNum ? { retryNum } : {}),
      retryReason: c.req.header('x-slack-retry-reason'),
      customProperties: {},
    }).catch(() => {
      if (!acked) {
        acked = true;
        clearTimeout(timer);
        settle(c.body(null, 500));
      }
    });
    return res;
  };
}

let cleanup: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const f of cleanup.reverse()) await f();
  cleanup = [];
});

async function setup(register: (app: App) => void = () => {}) {
  const fake = await startFakeSlack();
  cleanup.push(() => fake.close());
  const receiver = new HonoReceiver(fake.signingSecret);
  const app = new App({
    token: fake.botToken,
    receiver,
    logLevel: LogLevel.ERROR,
    clientOptions: { slackApiUrl: fake.apiUrl, retryConfig: { retries: 2, minTimeout: 0, maxTimeout: 0 } },
  });
  register(app);
  const web = new Hono();
  web.post('/slack/events', receiver.handler);
  const server = await new Promise<Server>((r) => {
    const s = serve({ fetch: web.fetch, port: 0, hostname: '127.0.0.1' }, () => r(s as Server));
  });
  cleanup.push(
    () =>
      new Promise((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  );
  return { fake, app, receiver, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/slack/events` };
}

const platformError = async (p: Promise<unknown>) =>
  p.then(
    () => {
      throw new Error('expected a platform error');
    },
    (e: { code?: string; data?: { error?: string; response_metadata?: { messages?: string[] } } }) => e,
  );

describe('fake Slack driven by real Bolt', () => {
  it('a signed message event reaches the listener and say() is stored; mentions arrive as app_mention', async () => {
    const mentions: string[] = [];
    const { fake, url } = await setup((app) => {
      app.message(/^echo (.+)/, async ({ context, say, message }) => {
        await say({ text: `you said ${context.matches[1]}`, thread_ts: (message as { ts: string }).ts });
      });
      app.event('app_mention', async ({ event }) => {
        mentions.push(event.text);
      });
    });
    const sent = await fake.signer.sendMessage(url, {
      channel: 'D0DM1',
      user: 'U0ALICE',
      text: 'echo hi there',
      channelType: 'im',
    });
    expect(sent.message.status).toBe(200);
    const call = await fake.calls.waitFor('chat.postMessage');
    expect(call.ok).toBe(true);
    expect(fake.calls.count('auth.test', (c) => c.ok)).toBeGreaterThanOrEqual(1);
    const [user, bot] = fake.messages('D0DM1');
    expect(user).toMatchObject({ user: 'U0ALICE', text: 'echo hi there' });
    expect(bot).toMatchObject({
      user: fake.identity.botUserId,
      bot_id: fake.identity.botId,
      text: 'you said hi there',
      thread_ts: sent.ts,
    });
    expect(Number(bot!.ts)).toBeGreaterThan(Number(user!.ts));

    const dm = await fake.signer.sendMessage(url, {
      channel: 'D0DM1',
      user: 'U0ALICE',
      text: `<@${fake.identity.botUserId}> hi`,
    });
    expect(dm.mention).toBeUndefined(); // Slack sends no app_mention in DMs, mentioned or not
    const ch = await fake.signer.sendMessage(url, {
      channel: 'C0GENERAL',
      user: 'U0ALICE',
      text: `<@${fake.identity.botUserId}> status?`,
      channelType: 'channel',
    });
    expect(ch.mention?.status).toBe(200);
    await expect.poll(() => mentions).toEqual([`<@${fake.identity.botUserId}> status?`]);
  });

  it('block_actions: ack() answers an empty 200, then chat.update edits the stored message', async () => {
    const { fake, app, url } = await setup((a) =>
      a.action('approve', async ({ ack, body, client }) => {
        await ack();
        const b = body as { channel: { id: string }; message: { ts: string }; actions: Array<{ value: string }> };
        await client.chat.update({
          channel: b.channel.id,
          ts: b.message.ts,
          text: `approved ${b.actions[0]!.value}`,
          blocks: [],
        });
      }),
    );
    const posted = await app.client.chat.postMessage({
      channel: 'C0OPS',
      text: 'Deploy?',
      blocks: [
        { type: 'section', text: { type: 'mrkdwn', text: 'Deploy?' } },
        {
          type: 'actions',
          elements: [
            { type: 'button', action_id: 'approve', value: 'job-7', text: { type: 'plain_text', text: 'Approve' } },
          ],
        },
      ],
    });
    const d = await fake.signer.sendBlockAction(url, {
      channel: 'C0OPS',
      user: 'U0BOB',
      messageTs: posted.ts!,
      actionId: 'approve',
    });
    expect([d.status, d.body]).toEqual([200, '']);
    await fake.calls.waitFor('chat.update', (c) => c.ok);
    const [msg] = fake.messages('C0OPS');
    expect(msg).toMatchObject({ text: 'approved job-7', edited: { user: fake.identity.botUserId } });
    expect(msg!.blocks).toBeUndefined();
    expect(msg!.edits).toHaveLength(1);
    await expect(
      fake.signer.sendBlockAction(url, { channel: 'C0OPS', user: 'U0BOB', messageTs: posted.ts!, actionId: 'nope' }),
    ).rejects.toThrow(/no button nope/);
  });

  it('slash command: ack, then respond() ephemeral and in_channel through the response_url', async () => {
    const { fake, url } = await setup((app) =>
      app.command('/kazma', async ({ ack, respond, command }) => {
        await ack();
        await respond(`status: ${command.text}`); // no response_type: Slack's default is ephemeral
        await respond({ response_type: 'in_channel', text: 'visible' });
      }),
    );
    const d = await fake.signer.sendSlashCommand(url, {
      command: '/kazma',
      text: 'all',
      user: 'U0CAROL',
      channel: 'C0OPS',
    });
    expect(d.status).toBe(200);
    await fake.calls.waitFor('response_url', (c) => c.args.text === 'visible');
    expect(fake.ephemerals('C0OPS', 'U0CAROL').map((e) => e.text)).toEqual(['status: all']);
    expect(fake.ephemerals('C0OPS', 'U0OTHER')).toEqual([]);
    expect(fake.messages('C0OPS').map((m) => m.text)).toEqual(['visible']);
    expect(fake.responses.map((r) => r.body.response_type)).toEqual([undefined, 'in_channel']);
  });

  it('url_verification echoes the challenge; forged, stale, future and unsigned requests get 401 and dispatch nothing', async () => {
    const { fake, url, receiver } = await setup();
    const v = await fake.signer.urlVerification(url, 'chal-123');
    expect([v.status, JSON.parse(v.body)]).toEqual([200, { challenge: 'chal-123' }]);
    expect((await fake.signer.sslCheck(url)).status).toBe(200);
    const event = JSON.stringify({ type: 'event_callback', event: { type: 'message', text: 'x' } });
    expect((await fake.signer.post(url, event)).status).toBe(200); // the control: the same body, properly signed
    for (const bad of [
      fake.signer.sendForged,
      fake.signer.sendStale,
      fake.signer.sendFuture,
      fake.signer.sendUnsigned,
    ]) {
      expect((await bad(url, event)).status).toBe(401);
    }
    expect(receiver.dispatched).toHaveLength(1);
  });

  it('a 429 with Retry-After: 1 is retried once by WebClient and the message is stored once', async () => {
    const { fake, app } = await setup();
    fake.failNext('chat.postMessage', { status: 429 });
    const t0 = Date.now();
    const res = await app.client.chat.postMessage({ channel: 'C0OPS', text: 'after the limit' });
    expect(Date.now() - t0).toBeGreaterThanOrEqual(950);
    expect(res.ok).toBe(true);
    expect(fake.calls.of('chat.postMessage').map((c) => [c.status, c.error ?? 'ok', c.injected])).toEqual([
      [429, 'ratelimited', true],
      [200, 'ok', false],
    ]);
    expect(fake.messages('C0OPS')).toHaveLength(1);
  });

  it('msg_too_long, invalid_blocks and no_text surface as slack_webapi_platform_error with data.error', async () => {
    const { fake, app } = await setup();
    const post = (args: Record<string, unknown>) => app.client.chat.postMessage({ channel: 'C0OPS', ...args } as never);
    expect((await post({ text: 'x'.repeat(40_000) })).ok).toBe(true);
    const long = await platformError(post({ text: 'x'.repeat(40_001) }));
    expect([long.code, long.data?.error]).toEqual(['slack_webapi_platform_error', 'msg_too_long']);
    const section = (n: number) => ({ type: 'section', text: { type: 'mrkdwn', text: 'y'.repeat(n) } });
    expect((await post({ text: 'ok', blocks: [section(3000)] })).ok).toBe(true);
    const big = await platformError(post({ text: 'f', blocks: [section(3001)] }));
    expect(big.data?.error).toBe('invalid_blocks');
    expect(big.data?.response_metadata?.messages).toEqual([
      '[ERROR] must be less than 3001 characters [json-pointer:/blocks/0/text/text]',
    ]);
    expect(
      (await platformError(post({ text: 'f', blocks: Array.from({ length: 51 }, () => section(1)) }))).data?.error,
    ).toBe('invalid_blocks');
    const button = (label: string) => ({
      type: 'actions',
      elements: [{ type: 'button', action_id: 'a', text: { type: 'plain_text', text: label } }],
    });
    expect((await platformError(post({ text: 'f', blocks: [button('b'.repeat(76))] }))).data?.error).toBe(
      'invalid_blocks',
    );
    expect((await platformError(post({ text: '' }))).data?.error).toBe('no_text');
    expect(
      (await platformError(app.client.chat.update({ channel: 'C0OPS', ts: '1.000001', text: 'x' }))).data?.error,
    ).toBe('message_not_found');
    expect(fake.messages('C0OPS')).toHaveLength(2);
  });

  it('Arabic with diacritics and emoji round-trip byte-exact through signed events and form-encoded calls', async () => {
    const text = 'مَرْحَبًا بِكُمْ 👋🏽 — تَمَّ ✅ a+b=c&d %20 👨‍👩‍👧';
    const seen: string[] = [];
    const { fake, url } = await setup((app) =>
      app.message(async ({ message, say }) => {
        const t = (message as { text: string }).text;
        seen.push(t);
        await say({ text: t, blocks: [{ type: 'section', text: { type: 'mrkdwn', text: t } }] });
      }),
    );
    await fake.signer.sendMessage(url, { channel: 'C0AR', user: 'U0ALI', text, channelType: 'channel' });
    const call = await fake.calls.waitFor('chat.postMessage');
    const bytes = Buffer.from(text, 'utf8');
    expect(Buffer.from(seen[0]!, 'utf8').equals(bytes)).toBe(true);
    const bot = fake.messages('C0AR')[1]!;
    expect(Buffer.from(bot.text, 'utf8').equals(bytes)).toBe(true);
    expect(Buffer.from((bot.blocks![0]!.text as { text: string }).text, 'utf8').equals(bytes)).toBe(true);
    expect(Array.isArray(call.args.blocks)).toBe(true); // the JSON string inside the form was decoded
  });
});
