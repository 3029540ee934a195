// The Telegram Surface against the fake Bot API: typing while a turn runs, edits that change nothing,
// HTML the API cannot parse, how every tap is answered, errors that say what to do, the command menu.
import { Hono } from 'hono';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { TelegramPlatform } from '../../../src/adapters/telegram/index.ts';
import { configSchema } from '../../../src/core/config/index.ts';
import { createLogger } from '../../../src/core/log/index.ts';
import { startFakeLlm, type FakeLlm } from '../../fakes/llm-server.ts';
import { startFakeTelegram } from '../../fakes/telegram/index.ts';
import { LINA, MAYA, startHarness, type Harness } from './harness.ts';

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

const DM = 'telegram:42' as const;
const card = (footer?: string) => ({
  title: 'Approve deploy?',
  fields: [{ label: 'Why', value: 'it is Friday' }],
  buttons: footer ? [] : [{ id: 'apv:AAAAAAAAAAAA:once', label: 'Approve', style: 'primary' as const }],
  ...(footer && { footer }),
});

describe('typing', () => {
  it('keeps "typing…" up while the turn runs and stops once the reply is sent', async () => {
    h = await startHarness({ modelBaseUrl: llm.baseURL, typingIntervalMs: 150 });
    llm.hangNext(1, 1000);
    h.say({ chatId: MAYA.id, from: MAYA, text: 'think hard' });
    const reply = await h.fake.calls.waitFor('sendMessage', (c) => c.body.text === 'echo: think hard');
    await new Promise((resolve) => setTimeout(resolve, 500));
    const actions = h.fake.calls.of('sendChatAction').filter((c) => c.body.chat_id === MAYA.id);
    expect(actions.filter((a) => a.at <= reply.at).length).toBeGreaterThanOrEqual(5);
    expect(actions.filter((a) => a.at > reply.at + 50)).toEqual([]);
    expect(actions.every((a) => a.body.action === 'typing')).toBe(true);
  });
});

describe('outbound', () => {
  it('skips an edit that would change nothing, and takes "message is not modified" as done', async () => {
    h = await startHarness({ modelBaseUrl: llm.baseURL });
    h.say({ chatId: MAYA.id, from: MAYA, text: 'hi' }); // the fake only knows chats someone wrote in
    await h.settled();
    const surface = h.platform.surface;
    const ref = await surface.sendCard(DM, card());
    await surface.editCard(ref, card('Approved once by Maya'));
    await surface.editCard(ref, card('Approved once by Maya'));
    expect(h.fake.calls.count('editMessageText')).toBe(1);
    h.fake.failNext('editMessageText', {
      status: 400,
      body: {
        ok: false,
        error_code: 400,
        description:
          'Bad Request: message is not modified: specified new message content and reply markup are exactly the same',
      },
    });
    await expect(surface.editCard(ref, card('Denied by Omar'))).resolves.toBeUndefined();
    expect(h.fake.messages(MAYA.id).find((m) => m.message_id === Number(ref.id))?.reply_markup).toBeUndefined();
  });

  it('an edit of a card someone deleted is done, not retried for ever (as on Discord)', async () => {
    h = await startHarness({ modelBaseUrl: llm.baseURL });
    h.say({ chatId: MAYA.id, from: MAYA, text: 'hi' });
    await h.settled();
    const surface = h.platform.surface;
    const ref = await surface.sendCard(DM, card());
    // Before: a TelegramApiError the outbox retried 8 times, then an incident about a stuck delivery.
    h.fake.failNext('editMessageText', {
      status: 400,
      body: { ok: false, error_code: 400, description: 'Bad Request: message to edit not found' },
    });
    await expect(surface.editCard(ref, card('Denied by Omar'))).resolves.toBeUndefined();
    h.fake.failNext('editMessageText', {
      status: 400,
      body: { ok: false, error_code: 400, description: 'Bad Request: BUTTON_DATA_INVALID' },
    });
    await expect(surface.editCard(ref, card('Denied by Omar'))).rejects.toThrow(/BUTTON_DATA_INVALID/);
  });

  it('sends the text plain when Telegram cannot parse the HTML, rather than losing the reply', async () => {
    h = await startHarness({ modelBaseUrl: llm.baseURL });
    h.say({ chatId: MAYA.id, from: MAYA, text: 'hi' });
    await h.settled();
    h.fake.failNext('sendMessage', {
      status: 400,
      body: { ok: false, error_code: 400, description: "Bad Request: can't parse entities: unsupported start tag" },
    });
    await h.platform.surface.send(DM, { text: 'a **bold** claim' });
    const last = h.fake.messages(MAYA.id).at(-1)!;
    expect(last.text).toBe('a bold claim');
    expect(last.parse_mode).toBeUndefined();
  });

  it('splits a long reply in a forum topic: every part in the topic, in order', async () => {
    h = await startHarness({ modelBaseUrl: llm.baseURL, groups: 'all' });
    h.say({ chatId: -1002000, from: MAYA, text: 'hi', messageThreadId: 5 });
    await h.settled();
    const lines = Array.from({ length: 400 }, (_, i) => `line ${i} ${'x'.repeat(20)}`);
    await h.platform.surface.send('telegram:-1002000:5', { text: lines.join('\n') });
    const parts = h.fake.messages(-1002000).slice(1);
    expect(parts.length).toBeGreaterThanOrEqual(3);
    expect(parts.every((m) => m.message_thread_id === 5 && m.text.length <= 4096)).toBe(true);
    expect(parts.flatMap((m) => m.text.split('\n'))).toEqual(lines);
  });

  it('says what to do when Telegram refuses: an unknown chat names the settings to check', async () => {
    h = await startHarness({ modelBaseUrl: llm.baseURL });
    await expect(h.platform.surface.send('telegram:-999', { text: 'hello' })).rejects.toMatchObject({
      code: 'telegram_api',
      errorCode: 400,
      message: expect.stringMatching(/chat not found\. Check the chat id \(access\.chats, approvals\.channels\)/),
    });
  });
});

describe('taps', () => {
  it('answers the winning tap with the outcome, a refused one with an alert, an unknown button too', async () => {
    h = await startHarness({ modelBaseUrl: llm.baseURL });
    llm.script({ toolCalls: [{ name: 'write_file', args: { path: 'n.txt', content: 'x' } }] });
    h.say({ chatId: MAYA.id, from: MAYA, text: 'write it' });
    await h.settled();
    const shown = h.fake.messages(MAYA.id).find((m) => m.reply_markup)!;
    const data = (decision: string) =>
      shown.reply_markup!.inline_keyboard.flat().find((b) => b.callback_data?.endsWith(`:${decision}`))!.callback_data!;
    const lina = h.tap({ chatId: MAYA.id, messageId: shown.message_id, from: LINA, data: data('once') });
    await h.settled();
    const maya = h.tap({ chatId: MAYA.id, messageId: shown.message_id, from: MAYA, data: data('once') });
    await h.settled();
    const answerOf = (update: typeof maya) =>
      h!.fake.calls.of('answerCallbackQuery').filter((c) => c.body.callback_query_id === update.callback_query!.id);
    expect(answerOf(lina)).toEqual([
      expect.objectContaining({
        ok: true,
        body: expect.objectContaining({
          show_alert: true,
          text: expect.stringMatching(/^You cannot decide this: only operators/),
        }),
      }),
    ]);
    expect(answerOf(maya)).toHaveLength(1);
    expect(answerOf(maya)[0]!.body).toEqual({
      callback_query_id: maya.callback_query!.id,
      text: expect.stringMatching(/^Approved once by Maya on Telegram at \d\d:\d\d UTC$/),
    });

    const stale = await h.platform.surface.sendCard(DM, card());
    const tap = h.tap({ chatId: MAYA.id, messageId: Number(stale.id), from: MAYA, data: 'apv:AAAAAAAAAAAA:once' });
    await h.settled();
    expect(answerOf(tap)[0]?.body).toMatchObject({
      show_alert: true,
      text: expect.stringMatching(/no longer active|not known/),
    });
  });
});

describe('start', () => {
  it('sets the command menu in English and Arabic', async () => {
    h = await startHarness({ modelBaseUrl: llm.baseURL });
    const english = h.fake.commands();
    const arabic = h.fake.commands({ languageCode: 'ar' });
    expect(english.map((c) => c.command)).toEqual(expect.arrayContaining(['help', 'new', 'status', 'approvals']));
    expect(arabic.map((c) => c.command)).toEqual(english.map((c) => c.command));
    expect(arabic.find((c) => c.command === 'help')?.description).toBe('عرض قائمة الأوامر');
    expect(english.find((c) => c.command === 'help')?.description).toBe('list the commands');
  });

  it('fails with what to do when the token is wrong', async () => {
    const fake = await startFakeTelegram();
    try {
      const config = configSchema.parse({
        telegram: { enabled: true, token: '7000000001:wrong', api_root: fake.apiRoot },
      }).telegram;
      const platform = new TelegramPlatform({
        config,
        app: new Hono(),
        logger: createLogger({ level: 'silent', pretty: false }),
        core: {
          pipeline: {
            accept: async () => ({ status: 'accepted' as const, done: Promise.resolve('handled' as const) }),
          },
          attachSurface: () => () => {},
          commands: { list: () => [] },
        },
      });
      await expect(platform.start()).rejects.toMatchObject({
        code: 'telegram_unauthorized',
        message: expect.stringMatching(/Telegram refused getMe: Unauthorized\. The bot token is wrong .*@BotFather/),
      });
      await platform.stop();
    } finally {
      await fake.close();
    }
  });
});
