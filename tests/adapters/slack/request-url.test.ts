// The Request URL (/slack/events) on Kazma's HTTP server: every request is verified on its raw bytes
// before anything is dispatched; Slack's probes are answered; retries of one event are handled once.
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startFakeLlm, type FakeLlm } from '../../fakes/llm-server.ts';
import { dmOf, MAYA, startSlackHarness, type SlackHarness } from './harness.ts';

let llm: FakeLlm;
let h: SlackHarness | undefined;
beforeAll(async () => {
  llm = await startFakeLlm();
});
afterAll(async () => {
  await llm.close();
});
afterEach(async () => {
  await h?.close();
  h = undefined;
  llm.requests.length = 0;
});

/** A DM from Maya as the Events API envelope Slack posts. */
function dmEnvelope(h: SlackHarness, eventId: string, text: string): string {
  const ts = `${Math.floor(Date.now() / 1000)}.000100`;
  return JSON.stringify({
    token: 'x',
    team_id: h.fake.identity.teamId,
    api_app_id: h.fake.identity.appId,
    type: 'event_callback',
    event_id: eventId,
    event_time: Math.floor(Date.now() / 1000),
    event: { type: 'message', channel_type: 'im', channel: dmOf(MAYA), user: MAYA.id, text, ts, event_ts: ts },
  });
}

const botTexts = (h: SlackHarness) =>
  h.fake
    .messages(dmOf(MAYA))
    .filter((m) => m.user === h.fake.identity.botUserId)
    .map((m) => m.text);

describe('the Request URL', () => {
  it('answers 401 to forged, stale, future, unsigned and half-signed requests, and dispatches none of them', async () => {
    h = await startSlackHarness({ modelBaseUrl: llm.baseURL });
    const raw = dmEnvelope(h, 'EvGUARDED1', 'hello');
    const { signer } = h.fake;
    const { 'X-Slack-Signature': signature, 'X-Slack-Request-Timestamp': timestamp } = signer.sign(raw);
    const answers = [
      await signer.sendForged(h.url, raw),
      await signer.sendStale(h.url, raw),
      await signer.sendFuture(h.url, raw),
      await signer.sendUnsigned(h.url, raw),
      await signer.post(h.url, raw, { unsigned: true, headers: { 'X-Slack-Signature': signature! } }),
      await signer.post(h.url, raw, { unsigned: true, headers: { 'X-Slack-Request-Timestamp': timestamp! } }),
      await signer.post(h.url, `${raw} `, {
        unsigned: true,
        headers: { 'X-Slack-Signature': signature!, 'X-Slack-Request-Timestamp': timestamp! },
      }), // body altered
    ];
    expect(answers.map((a) => a.status)).toEqual([401, 401, 401, 401, 401, 401, 401]);
    await h.settled();
    expect(llm.requests).toHaveLength(0);
    expect(botTexts(h)).toEqual([]);
    // The same event, properly signed, is new to Kazma: none of the rejected copies was even recorded.
    expect((await signer.post(h.url, raw)).status).toBe(200);
    await h.settled();
    expect(botTexts(h)).toEqual(['echo: hello']);
    expect(llm.requests).toHaveLength(1);
  });

  // Over the wire the clock moves between signing and checking, so these stay a minute clear of the edge;
  // the exact edge (±300 s in, ±301 s out) is unit-tested against a fixed clock.
  it('accepts timestamps within five minutes either way', async () => {
    h = await startSlackHarness({ modelBaseUrl: llm.baseURL });
    expect((await h.fake.signer.sendStale(h.url, dmEnvelope(h, 'EvOLD', 'old'), 240)).status).toBe(200);
    expect((await h.fake.signer.sendFuture(h.url, dmEnvelope(h, 'EvNEW', 'new'), 240)).status).toBe(200);
    await h.settled();
    expect(botTexts(h).sort()).toEqual(['echo: new', 'echo: old']);
  });

  it('answers url_verification with its challenge and the unsigned ssl_check with 200, dispatching nothing', async () => {
    h = await startSlackHarness({ modelBaseUrl: llm.baseURL });
    const verification = await h.fake.signer.urlVerification(h.url);
    expect(verification.status).toBe(200);
    expect(JSON.parse(verification.body)).toEqual({ challenge: verification.challenge });
    expect((await h.fake.signer.sslCheck(h.url)).status).toBe(200);
    expect((await h.fake.signer.post(h.url, 'not json')).status).toBe(400);
    expect(
      (await h.fake.signer.post(h.url, JSON.stringify({ type: 'event_callback', pad: 'x'.repeat(1024 * 1024) })))
        .status,
    ).toBe(413);
    await h.settled();
    expect(llm.requests).toHaveLength(0);
  });

  it('handles Slack’s retries of one event (X-Slack-Retry-Num) once', async () => {
    h = await startSlackHarness({ modelBaseUrl: llm.baseURL });
    const event = {
      type: 'message',
      channel_type: 'im',
      channel: dmOf(MAYA),
      user: MAYA.id,
      text: 'once please',
      ts: '1700000001.000001',
    };
    const first = await h.fake.signer.sendEvent(h.url, event);
    const retries = await Promise.all(
      [1, 2, 3].map((n) =>
        h!.fake.signer.sendEvent(h!.url, event, { eventId: first.eventId, retryNum: n, retryReason: 'http_timeout' }),
      ),
    );
    expect([first, ...retries].map((d) => d.status)).toEqual([200, 200, 200, 200]);
    await h.settled();
    expect(botTexts(h)).toEqual(['echo: once please']);
    expect(llm.requests).toHaveLength(1);
  });

  it('acknowledges an event at once, before the turn runs', async () => {
    h = await startSlackHarness({ modelBaseUrl: llm.baseURL });
    // The model call is held until the event has been acknowledged: were the acknowledgement to wait for
    // the turn, it would never come (and the test would time out), however fast or slow the machine.
    const model = llm.holdNext(1);
    const delivery = await h.fake.signer.sendMessage(h.url, {
      channel: dmOf(MAYA),
      user: MAYA.id,
      text: 'take your time',
    });
    expect(delivery.message.status).toBe(200);
    expect(botTexts(h)).toEqual([]);
    model.release();
    await h.settled();
    expect(botTexts(h)).toEqual(['echo: take your time']);
  });

  it('answers 503 before start and after stop, so Slack delivers again later', async () => {
    h = await startSlackHarness({ modelBaseUrl: llm.baseURL });
    await h.platform.stop();
    expect((await h.fake.signer.post(h.url, dmEnvelope(h, 'EvLATE', 'late'))).status).toBe(503);
    await h.settled();
    expect(llm.requests).toHaveLength(0);
  });

  it('answers 400 to a signed event whose fields have the wrong type, and runs nothing', async () => {
    h = await startSlackHarness({ modelBaseUrl: llm.baseURL });
    const event = {
      type: 'message',
      channel_type: 'im',
      channel: dmOf(MAYA),
      user: MAYA.id,
      text: { not: 'a string' },
      ts: '1700000002.000001',
    };
    const delivery = await h.fake.signer.sendEvent(h.url, event);
    expect(delivery.status).toBe(400);
    const noUser = await h.fake.signer.sendEvent(h.url, {
      type: 'message',
      channel_type: 'im',
      channel: 42,
      text: 'hi',
      ts: '1700000003.000001',
    });
    expect(noUser.status).toBe(400);
    await h.settled();
    expect(llm.requests).toHaveLength(0);
  });

  it('answers 400 to a signed button payload or slash command without its user, and runs nothing', async () => {
    h = await startSlackHarness({ modelBaseUrl: llm.baseURL });
    const form = (fields: Record<string, string>) => new URLSearchParams(fields).toString();
    const contentType = 'application/x-www-form-urlencoded';
    const action = {
      type: 'block_actions',
      trigger_id: 'T1',
      channel: { id: dmOf(MAYA) },
      actions: [{ action_id: 'gate:approve:x', action_ts: '1700000004.000001' }],
    };
    const tap = await h.fake.signer.post(h.url, form({ payload: JSON.stringify(action) }), { contentType });
    expect(tap.status).toBe(400);
    const command = form({ command: '/kazma', text: 'status', channel_id: dmOf(MAYA) });
    expect((await h.fake.signer.post(h.url, command, { contentType })).status).toBe(400);
    await h.settled();
    expect(llm.requests).toHaveLength(0);
  });

  it('stops reading a chunked body past the cap and answers 413 without buffering it', async () => {
    h = await startSlackHarness({ modelBaseUrl: llm.baseURL });
    let sent = 0;
    const chunk = new Uint8Array(64 * 1024).fill(32);
    const body = new ReadableStream<Uint8Array>({
      pull(controller) {
        if (sent >= 200 * 1024 * 1024) return controller.close();
        sent += chunk.length;
        controller.enqueue(chunk);
      },
    });
    const response = await fetch(h.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body,
      duplex: 'half',
    } as RequestInit);
    expect(response.status).toBe(413);
    // The answer came long before 200 MB were pushed: the body was not read to its end.
    expect(sent).toBeLessThan(32 * 1024 * 1024);
    expect(llm.requests).toHaveLength(0);
  });
});
