// The fake driven by the real grammy Bot in long-polling mode: what the Telegram adapter relies on.
import { GrammyError, InlineKeyboard, type Bot } from 'grammy';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { eventually } from '../../helpers/eventually.ts';
import { startPolling, type RunningBot } from './grammy-harness.ts';
import { startFakeTelegram, type FakeTelegram } from './index.ts';

const MAYA = { id: 42, first_name: 'Maya', username: 'maya' };
let fake: FakeTelegram;
let running: RunningBot | undefined;

beforeEach(async () => {
  fake = await startFakeTelegram();
});
afterEach(async () => {
  await running?.stop();
  expect(running?.errors ?? []).toEqual([]);
  running = undefined;
  await fake.close();
});

const start = async (setup: (bot: Bot) => void): Promise<Bot> => (running = await startPolling(fake, setup)).bot;

describe('fake Telegram with grammy polling', () => {
  it('delivers a text update, confirms it by offset, and stores the reply from the bot user', async () => {
    let replied!: (m: { from?: { id: number }; message_id: number }) => void;
    const reply = new Promise<{ from?: { id: number }; message_id: number }>((r) => {
      replied = r;
    });
    await start((bot) =>
      bot.on('message:text', async (ctx) => {
        replied(await ctx.reply(`echo: ${ctx.message.text}`));
      }),
    );
    const update = fake.sendUserMessage({ chatId: MAYA.id, from: MAYA, text: 'hello' });
    const sent = await reply; // what grammy got back from the fake
    expect(fake.messages(MAYA.id).map((m) => m.text)).toEqual(['echo: hello']);
    expect(sent.from?.id).toBe(fake.bot.id);
    expect(sent.message_id).toBe(update.message!.message_id + 1); // ids increase per chat
    // The next poll confirmed the update (offset = id + 1), so nothing is redelivered to a new poller.
    const api = running!.bot.api;
    await running!.stop();
    running = undefined;
    expect(fake.calls.of('getUpdates').map((c) => c.body.offset)).toContain(update.update_id + 1);
    expect(await api.getUpdates({ timeout: 0 })).toEqual([]);
  });

  it('marks /commands with bot_command entities so bot.command matches, in groups and forum topics too', async () => {
    const seen: string[] = [];
    await start((bot) => {
      bot.command('status', (ctx) => ctx.reply(`status for ${ctx.match || 'all'}`));
      bot.on('message:text', (ctx) => {
        seen.push(ctx.message.text);
      });
    });
    fake.sendUserMessage({ chatId: MAYA.id, from: MAYA, text: 'status' }); // not a command: no entity
    fake.sendUserMessage({ chatId: MAYA.id, from: MAYA, text: '/status disk' });
    fake.sendUserMessage({
      chatId: -1001234,
      from: MAYA,
      text: `/status@${fake.bot.username} topic`,
      messageThreadId: 7,
    });
    await fake.calls.waitFor('sendMessage', (c) => c.body.chat_id === -1001234);
    await fake.calls.waitFor('sendMessage', (c) => c.body.chat_id === MAYA.id);
    expect(seen).toEqual(['status']);
    expect(fake.messages(MAYA.id).map((m) => m.text)).toEqual(['status for disk']);
    const [topicReply] = fake.messages(-1001234);
    expect(topicReply).toMatchObject({ text: 'status for topic', message_thread_id: 7 });
  });

  it('turns a tap into a callback_query answered once, then edits the card (keyboard removed, history kept)', async () => {
    const card = new InlineKeyboard().text('Approve', 'gate:1:yes').text('Deny', 'gate:1:no');
    await start((bot) => {
      bot.command('menu', (ctx) => ctx.reply('<b>Deploy?</b>', { parse_mode: 'HTML', reply_markup: card }));
      bot.callbackQuery('gate:1:yes', async (ctx) => {
        await ctx.answerCallbackQuery({ text: 'Approved' });
        await ctx.editMessageText('Approved by @maya');
      });
    });
    fake.sendUserMessage({ chatId: MAYA.id, from: MAYA, text: '/menu' });
    await fake.calls.waitFor('sendMessage');
    const [sent] = fake.messages(MAYA.id);
    expect(sent).toMatchObject({
      text: 'Deploy?',
      raw_text: '<b>Deploy?</b>',
      parse_mode: 'HTML',
      entities: [{ type: 'bold', offset: 0, length: 7 }],
    });
    expect(() =>
      fake.tapButton({ chatId: MAYA.id, messageId: sent!.message_id, from: MAYA, data: 'gate:2:yes' }),
    ).toThrow(/no button/);
    const tap = fake.tapButton({ chatId: MAYA.id, messageId: sent!.message_id, from: MAYA, data: 'gate:1:yes' });
    const answer = await fake.calls.waitFor('answerCallbackQuery');
    expect(answer.body).toMatchObject({ callback_query_id: tap.callback_query!.id, text: 'Approved' });
    await fake.calls.waitFor('editMessageText');
    const [edited] = fake.messages(MAYA.id);
    expect(edited).toMatchObject({ text: 'Approved by @maya', entities: [] });
    expect(edited!.reply_markup).toBeUndefined();
    expect(edited!.history).toHaveLength(1);
    expect(edited!.history[0]!.reply_markup?.inline_keyboard[0]?.map((b) => b.callback_data)).toEqual([
      'gate:1:yes',
      'gate:1:no',
    ]);
    const again = running!.bot.api.answerCallbackQuery(tap.callback_query!.id);
    await expect(again).rejects.toMatchObject({
      error_code: 400,
      description: 'Bad Request: query is too old and response timeout expired or query ID is invalid',
    });
  });

  it('retries a 429 with retry_after via auto-retry and stores the message once', async () => {
    const bot = await start(() => undefined);
    fake.sendUserMessage({ chatId: MAYA.id, from: MAYA, text: 'hi' });
    fake.failNext('sendMessage', {
      status: 429,
      body: {
        ok: false,
        error_code: 429,
        description: 'Too Many Requests: retry after 1',
        parameters: { retry_after: 1 },
      },
    });
    const t0 = Date.now();
    await bot.api.sendMessage(MAYA.id, 'after the limit');
    expect(Date.now() - t0).toBeGreaterThanOrEqual(990);
    expect(fake.calls.count('sendMessage')).toBe(2);
    expect(fake.calls.count('sendMessage', { ok: false })).toBe(1);
    expect(fake.messages(MAYA.id).map((m) => m.text)).toEqual(['after the limit']);
  });

  it('rejects over-long, empty and malformed text and over-long callback data with the real errors', async () => {
    const bot = await start(() => undefined);
    fake.sendUserMessage({ chatId: MAYA.id, from: MAYA, text: 'hi' });
    const reject = (p: Promise<unknown>, description: string) =>
      expect(p).rejects.toSatisfy(
        (e) => e instanceof GrammyError && e.error_code === 400 && e.description === description,
      );
    await reject(bot.api.sendMessage(MAYA.id, 'a'.repeat(4097)), 'Bad Request: message is too long');
    await reject(bot.api.sendMessage(MAYA.id, ''), 'Bad Request: message text is empty');
    await reject(
      bot.api.sendMessage(MAYA.id, '<b>x', { parse_mode: 'HTML' }),
      'Bad Request: can\'t parse entities: Can\'t find end tag corresponding to start tag "b"',
    );
    await reject(bot.api.sendMessage(-999, 'x'), 'Bad Request: chat not found');
    const keyboard = (data: string) => ({ reply_markup: new InlineKeyboard().text('x', data) });
    await reject(bot.api.sendMessage(MAYA.id, 'x', keyboard('é'.repeat(33))), 'Bad Request: BUTTON_DATA_INVALID'); // 66 bytes
    await reject(bot.api.sendMessage(MAYA.id, 'x', keyboard('a'.repeat(65))), 'Bad Request: BUTTON_DATA_INVALID');
    // The limits are inclusive, and text length is counted after entity parsing.
    await bot.api.sendMessage(MAYA.id, 'a'.repeat(4096));
    await bot.api.sendMessage(MAYA.id, `<b>${'a'.repeat(4096)}</b>`, { parse_mode: 'HTML' });
    await bot.api.sendMessage(MAYA.id, 'x', keyboard('é'.repeat(32)));
    expect(fake.messages(MAYA.id)).toHaveLength(3);
  });

  it('rejects an identical edit as "message is not modified" and accepts a real change', async () => {
    const bot = await start(() => undefined);
    fake.sendUserMessage({ chatId: MAYA.id, from: MAYA, text: 'hi' });
    const sent = await bot.api.sendMessage(MAYA.id, 'Working…');
    await expect(bot.api.editMessageText(MAYA.id, sent.message_id, 'Working…')).rejects.toMatchObject({
      error_code: 400,
      description:
        'Bad Request: message is not modified: specified new message content and reply markup are exactly the same as a current content and reply markup of the message',
    });
    await bot.api.editMessageText(MAYA.id, sent.message_id, 'Done');
    const [msg] = fake.messages(MAYA.id);
    expect(msg).toMatchObject({ text: 'Done', history: [{ text: 'Working…' }] });
  });

  it('round-trips Arabic with diacritics and emoji byte-exact, with UTF-16 entity offsets', async () => {
    const arabic = 'مَرْحَبًا بِكُمْ في كَازْمَا 👋🏽 ✅ 👨‍👩‍👧';
    const received: string[] = [];
    await start((bot) =>
      bot.on('message:text', async (ctx) => {
        received.push(ctx.message.text);
        await ctx.reply(ctx.message.text);
        await ctx.reply(`<b>👋🏽 مَرْحَبًا</b> &amp; ${ctx.message.text}`, { parse_mode: 'HTML' });
      }),
    );
    fake.sendUserMessage({ chatId: MAYA.id, from: MAYA, text: arabic });
    await fake.calls.waitFor('sendMessage', (c) => c.body.parse_mode === 'HTML');
    const [plain, html] = fake.messages(MAYA.id);
    expect(Buffer.from(received[0]!, 'utf8').equals(Buffer.from(arabic, 'utf8'))).toBe(true);
    expect(Buffer.from(plain!.text, 'utf8').equals(Buffer.from(arabic, 'utf8'))).toBe(true);
    expect(html!.text).toBe(`👋🏽 مَرْحَبًا & ${arabic}`);
    expect(html!.entities).toEqual([{ type: 'bold', offset: 0, length: '👋🏽 مَرْحَبًا'.length }]);
  });

  it('stops promptly: bot.stop() aborts the held 30 s long poll', async () => {
    await start(() => undefined);
    await eventually(
      () => fake.heldPolls(),
      (n) => n === 1,
      "the bot's long poll held by the fake",
    );
    const t0 = Date.now();
    await running!.stop();
    running = undefined;
    expect(fake.heldPolls()).toBe(0);
    // Far below the poll's own 30 s, which a stop that waited for the poll would take, and far above
    // what a loaded machine needs for a stop that aborts it.
    expect(Date.now() - t0).toBeLessThan(10_000);
  });
});
