// Webhook mode: Telegram posts to /telegram/webhook on Kazma's HTTP server with the secret header.
// A wrong or missing secret is a 401 and nothing is dispatched; Telegram is answered before the turn
// ends; a redelivered update — also after a restart — is processed once.
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startFakeLlm, type FakeLlm } from '../../fakes/llm-server.ts';
import { startFakeTelegram, type FakeTelegram } from '../../fakes/telegram/index.ts';
import { freshDatabase } from '../../helpers/databases.ts';
import { MAYA, startHarness, WEBHOOK_SECRET, type Harness } from './harness.ts';

let llm: FakeLlm;
let h: Harness | undefined;
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

const message = (fake: FakeTelegram, text: string) => {
  fake.addChat({ id: MAYA.id, type: 'private', first_name: MAYA.first_name });
  return {
    message: {
      message_id: 1,
      date: Math.floor(Date.now() / 1000),
      chat: { id: MAYA.id, type: 'private' as const, first_name: 'Maya' },
      from: { ...MAYA, is_bot: false },
      text,
    },
  };
};

describe('telegram webhook', () => {
  it('registers the webhook with its secret at start and answers what Telegram posts', async () => {
    h = await startHarness({ modelBaseUrl: llm.baseURL, mode: 'webhook' });
    const set = await h.fake.calls.waitFor('setWebhook');
    expect(set.body).toMatchObject({
      url: `http://127.0.0.1:${h.http!.port}/telegram/webhook`,
      secret_token: WEBHOOK_SECRET,
      allowed_updates: ['message', 'callback_query'],
    });
    h.say({ chatId: MAYA.id, from: MAYA, text: 'via webhook' });
    await h.fake.webhookSettled();
    await h.settled();
    expect(h.fake.deliveries.map((d) => d.status)).toEqual([200]);
    expect(h.fake.messages(MAYA.id).map((m) => m.text)).toEqual(['echo: via webhook']);
  });

  it('answers 401 to a wrong or missing secret and dispatches nothing', async () => {
    h = await startHarness({ modelBaseUrl: llm.baseURL, mode: 'webhook' });
    const wrong = await h.fake.postWebhook(message(h.fake, 'let me in'), { secretToken: 'not-the-secret' });
    const missing = await h.fake.postWebhook(message(h.fake, 'let me in'), { secretToken: null });
    expect([wrong.status, missing.status]).toEqual([401, 401]);
    await h.settled();
    expect(h.platform.inbound.highestUpdateId).toBe(0);
    expect(llm.requests).toHaveLength(0);
    expect(h.fake.messages(MAYA.id)).toEqual([]);
  });

  it('answers Telegram at once, before the turn ends', async () => {
    h = await startHarness({ modelBaseUrl: llm.baseURL, mode: 'webhook' });
    // The model call is held until the delivery has been answered: were the answer to wait for the turn,
    // it would never come (and the test would time out), however fast or slow the machine.
    const model = llm.holdNext(1);
    const delivery = await h.fake.postWebhook(message(h.fake, 'take your time'));
    expect(delivery.status).toBe(200);
    expect(h.fake.messages(MAYA.id).map((m) => m.text)).toEqual([]);
    model.release();
    await h.settled();
    expect(h.fake.messages(MAYA.id).map((m) => m.text)).toEqual(['echo: take your time']);
  });

  it('processes a redelivered update once, also after a restart on the same database', async () => {
    const fake = await startFakeTelegram();
    const database = await freshDatabase('pglite');
    try {
      h = await startHarness({ modelBaseUrl: llm.baseURL, mode: 'webhook', fake, database });
      const first = await fake.postWebhook(message(fake, 'only once'));
      expect(first.status).toBe(200);
      const update = JSON.parse(JSON.stringify({ update_id: first.update_id, ...message(fake, 'only once') }));
      expect((await fake.postWebhook(update)).status).toBe(200);
      await h.settled();
      expect(llm.requests).toHaveLength(1);
      await h.close();

      h = await startHarness({ modelBaseUrl: llm.baseURL, mode: 'webhook', fake, database });
      expect((await fake.postWebhook(update)).status).toBe(200);
      await h.settled();
      expect(llm.requests).toHaveLength(1);
      expect(fake.messages(MAYA.id).map((m) => m.text)).toEqual(['echo: only once']);
    } finally {
      await h?.close();
      h = undefined;
      await database.dispose();
      await fake.close();
    }
  });

  it('answers 503 once stopped, so Telegram keeps the update for later', async () => {
    h = await startHarness({ modelBaseUrl: llm.baseURL, mode: 'webhook' });
    await h.platform.stop();
    const late = await h.fake.postWebhook(message(h.fake, 'too late'));
    expect(late.status).toBe(503);
    expect(llm.requests).toHaveLength(0);
  });

  it('answers 400 to a body that is not JSON and to an update of the wrong shape, with the right secret, and runs nothing', async () => {
    h = await startHarness({ modelBaseUrl: llm.baseURL, mode: 'webhook' });
    const url = `http://127.0.0.1:${h.http!.port}/telegram/webhook`;
    const post = (body: string) =>
      fetch(url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-telegram-bot-api-secret-token': WEBHOOK_SECRET },
        body,
      });
    const notJson = await post('{"update_id": 1, "message": ');
    expect(notJson.status).toBe(400);
    const base = message(h.fake, 'x').message;
    const numberText = await post(JSON.stringify({ update_id: 900001, message: { ...base, text: 12345 } }));
    expect(numberText.status).toBe(400);
    expect(await numberText.text()).toMatch(/message\.text/);
    const noId = await post(JSON.stringify({ message: base }));
    expect(noId.status).toBe(400);
    const arrayText = await post(JSON.stringify({ update_id: 900002, message: { ...base, text: ['/config', 'x'] } }));
    expect(arrayText.status).toBe(400);
    // A text_mention entity carries the user it mentions; one without (or with a malformed one) is refused
    // as malformed, not a crash (before: a 500 from reading its missing user).
    const noMentioned = await post(
      JSON.stringify({
        update_id: 900003,
        message: {
          ...base,
          chat: { id: -100777, type: 'group', title: 'g' },
          entities: [{ type: 'text_mention', offset: 0, length: 1 }],
        },
      }),
    );
    expect(noMentioned.status).not.toBe(500);
    const badMentioned = await post(
      JSON.stringify({
        update_id: 900004,
        message: { ...base, entities: [{ type: 'text_mention', offset: 0, length: 1, user: { id: 'x' } }] },
      }),
    );
    expect(badMentioned.status).toBe(400);
    // The adapter is still healthy: a good update right after is answered.
    expect((await h.fake.postWebhook(message(h.fake, 'still here'))).status).toBe(200);
    await h.settled();
    expect(h.fake.messages(MAYA.id).map((m) => m.text)).toEqual(['echo: still here']);
    expect(llm.requests).toHaveLength(1);
  });

  it('refuses a body over the cap with 413 before reading it, and a stranger with 401 before that', async () => {
    h = await startHarness({ modelBaseUrl: llm.baseURL, mode: 'webhook' });
    const url = `http://127.0.0.1:${h.http!.port}/telegram/webhook`;
    const big = JSON.stringify({
      update_id: 1,
      message: { ...message(h.fake, 'x').message, text: 'x'.repeat(2 * 1024 * 1024) },
    });
    const withSecret = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-telegram-bot-api-secret-token': WEBHOOK_SECRET },
      body: big,
    });
    expect(withSecret.status).toBe(413);
    const stranger = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: big });
    expect(stranger.status).toBe(401);
    expect(llm.requests).toHaveLength(0);
  });
});
