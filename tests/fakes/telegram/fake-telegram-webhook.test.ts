// Webhook mode: the fake plays Telegram and POSTs updates to a real hono app built from grammy's
// webhookCallback, with the X-Telegram-Bot-Api-Secret-Token header.
import { serve } from '@hono/node-server';
import { webhookCallback, type Bot } from 'grammy';
import { Hono } from 'hono';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { makeBot } from './grammy-harness.ts';
import { startFakeTelegram, type FakeTelegram } from './index.ts';

const MAYA = { id: 42, first_name: 'Maya' };
const SECRET = 'kazma_Webhook-secret_1';
let fake: FakeTelegram;
let bot: Bot;
let server: Server;
let url: string;
const handled: string[] = [];

beforeEach(async () => {
  handled.length = 0;
  fake = await startFakeTelegram();
  bot = makeBot(fake);
  bot.on('message:text', async (ctx) => {
    handled.push(ctx.message.text);
    await ctx.reply(`got ${ctx.message.text}`);
  });
  const app = new Hono();
  app.post('/telegram/webhook', webhookCallback(bot, 'hono', { secretToken: SECRET, onTimeout: 'return' }));
  server = await new Promise<Server>((resolve) => {
    const s = serve({ fetch: app.fetch, port: 0, hostname: '127.0.0.1', overrideGlobalObjects: false }, () =>
      resolve(s as Server),
    );
  });
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/telegram/webhook`;
});

afterEach(async () => {
  server.closeAllConnections();
  await new Promise((r) => server.close(r));
  await fake.close();
});

describe('fake Telegram in webhook mode', () => {
  it('delivers updates to the registered webhook with the secret header; the bot replies', async () => {
    await bot.api.setWebhook(url, { secret_token: SECRET });
    fake.sendUserMessage({ chatId: MAYA.id, from: MAYA, text: 'via webhook' });
    await fake.webhookSettled();
    expect(fake.deliveries.map((d) => d.status)).toEqual([200]);
    expect(handled).toEqual(['via webhook']);
    expect(fake.messages(MAYA.id).map((m) => m.text)).toEqual(['got via webhook']);
    const info = await bot.api.getWebhookInfo();
    expect(info).toMatchObject({ url, pending_update_count: 0, has_custom_certificate: false });
  });

  it('a wrong or missing secret is refused with 401 and nothing is dispatched', async () => {
    await bot.api.setWebhook(url, { secret_token: SECRET });
    fake.addChat({ id: MAYA.id, type: 'private', first_name: 'Maya' });
    const update = {
      message: {
        message_id: 1,
        date: 0,
        chat: { id: MAYA.id, type: 'private' as const, first_name: 'Maya' },
        from: { ...MAYA, is_bot: false },
        text: 'intruder',
      },
    };
    expect((await fake.postWebhook(update, { secretToken: 'wrong' })).status).toBe(401);
    expect((await fake.postWebhook(update, { secretToken: null })).status).toBe(401);
    expect(handled).toEqual([]);
    expect((await fake.postWebhook(update)).status).toBe(200); // control: the same update with the right secret
    expect(handled).toEqual(['intruder']);
  });

  it('keeps a refused update pending, and answers getUpdates with 409 while the webhook is set', async () => {
    await bot.api.setWebhook(url, { secret_token: 'not_what_the_bot_expects' });
    fake.sendUserMessage({ chatId: MAYA.id, from: MAYA, text: 'queued' });
    await fake.webhookSettled();
    expect(fake.deliveries.map((d) => d.status)).toEqual([401]);
    expect(await bot.api.getWebhookInfo()).toMatchObject({
      pending_update_count: 1,
      last_error_message: 'Wrong response from the webhook: 401',
    });
    await expect(bot.api.getUpdates()).rejects.toMatchObject({
      error_code: 409,
      description:
        "Conflict: can't use getUpdates method while webhook is active; use deleteWebhook to delete the webhook first",
    });
    // Fixing the secret redelivers the pending update; deleting the webhook re-enables polling.
    await bot.api.setWebhook(url, { secret_token: SECRET });
    await fake.webhookSettled();
    expect(handled).toEqual(['queued']);
    await bot.api.deleteWebhook();
    expect(await bot.api.getUpdates({ timeout: 0 })).toEqual([]);
  });
});
