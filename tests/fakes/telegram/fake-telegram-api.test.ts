// The wire itself, without a bot loop: envelope and status, auth, body encodings, and the smaller
// methods (commands, chat actions, deletes, callback answers, concurrent polls).
import { Bot } from 'grammy';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { eventually } from '../../helpers/eventually.ts';
import { startFakeTelegram, type FakeTelegram } from './index.ts';

const MAYA = { id: 42, first_name: 'Maya' };
let fake: FakeTelegram;
let api: Bot['api'];

const call = async (method: string, init: RequestInit = {}, token = fake.token) => {
  const res = await fetch(`${fake.apiRoot}/bot${token}/${method}`, { method: 'POST', ...init });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
};
const json = (body: unknown): RequestInit => ({
  headers: { 'content-type': 'application/json' },
  body: JSON.stringify(body),
});

beforeEach(async () => {
  fake = await startFakeTelegram({ token: '123456:TEST-token', botUser: { username: 'kazma_ci_bot' } });
  api = new Bot(fake.token, { client: { apiRoot: fake.apiRoot } }).api;
  fake.sendUserMessage({ chatId: MAYA.id, from: MAYA, text: 'hi' });
});
afterEach(async () => {
  await fake.close();
});

describe('fake Telegram wire', () => {
  it('answers with the exact envelopes and HTTP status = error_code', async () => {
    expect(await call('getMe', json({}))).toEqual({
      status: 200,
      body: { ok: true, result: expect.objectContaining({ id: 123456, is_bot: true, username: 'kazma_ci_bot' }) },
    });
    expect(await call('getMe', json({}), '999:wrong')).toEqual({
      status: 401,
      body: { ok: false, error_code: 401, description: 'Unauthorized' },
    });
    expect(await call('sendTelepathy', json({}))).toEqual({
      status: 404,
      body: { ok: false, error_code: 404, description: 'Not Found' },
    });
    expect((await call('SENDMESSAGE', json({ chat_id: 42, text: 'case-insensitive' }))).status).toBe(200);
    fake.failNext('getMe', { status: 502 });
    expect(await call('getMe')).toEqual({
      status: 502,
      body: { ok: false, error_code: 502, description: 'Internal Server Error' },
    });
    expect(fake.calls.count('getMe', { ok: false })).toBe(2);
  });

  it('accepts form-urlencoded and multipart bodies with JSON-serialised fields', async () => {
    const markup = JSON.stringify({ inline_keyboard: [[{ text: 'Go', callback_data: 'go' }]] });
    const form = new URLSearchParams({ chat_id: '42', text: '<i>form</i>', parse_mode: 'HTML', reply_markup: markup });
    expect((await call('sendMessage', { body: form })).status).toBe(200);
    const multipart = new FormData();
    multipart.set('chat_id', '42');
    multipart.set('text', 'multi');
    expect((await call('sendMessage', { body: multipart })).status).toBe(200);
    const [a, b] = fake.messages(42);
    expect(a).toMatchObject({
      text: 'form',
      entities: [{ type: 'italic', offset: 0, length: 4 }],
      reply_markup: { inline_keyboard: [[{ text: 'Go', callback_data: 'go' }]] },
    });
    expect(b).toMatchObject({ text: 'multi' });
  });

  it('stores commands per scope and language_code', async () => {
    await api.setMyCommands([{ command: 'status', description: 'Show status' }]);
    await api.setMyCommands([{ command: 'status', description: 'عرض الحالة' }], { language_code: 'ar' });
    expect(await api.getMyCommands()).toEqual([{ command: 'status', description: 'Show status' }]);
    expect(await api.getMyCommands({ language_code: 'ar' })).toEqual([
      { command: 'status', description: 'عرض الحالة' },
    ]);
    expect(await api.getMyCommands({ language_code: 'de' })).toEqual([]);
    expect(fake.commands({ languageCode: 'ar' })).toHaveLength(1);
    await expect(api.setMyCommands([{ command: 'Status', description: 'x' }])).rejects.toMatchObject({
      description: 'Bad Request: BOT_COMMAND_INVALID',
    });
  });

  it('validates chat actions, deletes, and callback answers', async () => {
    expect(await api.sendChatAction(42, 'typing')).toBe(true);
    await expect(api.sendChatAction(42, 'dancing' as 'typing')).rejects.toMatchObject({
      description: 'Bad Request: wrong parameter action in request',
    });
    const sent = await api.sendMessage(42, 'bye');
    expect(await api.deleteMessage(42, sent.message_id)).toBe(true);
    expect(fake.messages(42)).toEqual([]);
    expect(fake.messages(42, { includeDeleted: true })).toMatchObject([{ text: 'bye', deleted: true }]);
    await expect(api.deleteMessage(42, sent.message_id)).rejects.toMatchObject({
      description: 'Bad Request: message to delete not found',
    });
    await expect(api.editMessageText(42, sent.message_id, 'x')).rejects.toMatchObject({
      description: 'Bad Request: message to edit not found',
    });
    const card = await api.sendMessage(42, 'card', {
      reply_markup: { inline_keyboard: [[{ text: 'Ok', callback_data: 'ok' }]] },
    });
    const tap = fake.tapButton({ chatId: 42, messageId: card.message_id, from: MAYA, data: 'ok' });
    await expect(api.answerCallbackQuery(tap.callback_query!.id, { text: 'x'.repeat(201) })).rejects.toMatchObject({
      description: 'Bad Request: MESSAGE_TOO_LONG',
    });
    expect(await api.answerCallbackQuery(tap.callback_query!.id, { text: 'x'.repeat(200) })).toBe(true);
  });

  it('edits only the keyboard with editMessageReplyMarkup, and refuses an unchanged one', async () => {
    const kb = { inline_keyboard: [[{ text: 'Ok', callback_data: 'ok' }]] };
    const sent = await api.sendMessage(42, 'card', { reply_markup: kb });
    await expect(api.editMessageReplyMarkup(42, sent.message_id, { reply_markup: kb })).rejects.toMatchObject({
      error_code: 400,
    });
    const edited = await api.editMessageReplyMarkup(42, sent.message_id);
    expect(edited).toMatchObject({ text: 'card', edit_date: expect.any(Number) });
    expect(fake.messages(42)[0]).toMatchObject({ text: 'card', history: [{ reply_markup: kb }] });
    expect(fake.messages(42)[0]!.reply_markup).toBeUndefined();
  });

  it('confirms by offset, and ends a held poll with 409 when another getUpdates arrives', async () => {
    const first = (await call('getUpdates', json({ timeout: 0 }))).body.result as Array<{ update_id: number }>;
    expect(first).toHaveLength(1);
    const offset = first[0]!.update_id + 1; // confirms 'hi'
    const held = call('getUpdates', json({ offset, timeout: 5 }));
    // Held before the second arrives: on a loaded machine a fixed pause let the second one in first.
    await eventually(
      () => fake.heldPolls(),
      (n) => n === 1,
      'the first poll held by the fake',
    );
    const second = await call('getUpdates', json({ offset, timeout: 0 }));
    expect(await held).toEqual({
      status: 409,
      body: {
        ok: false,
        error_code: 409,
        description:
          'Conflict: terminated by other getUpdates request; make sure that only one bot instance is running',
      },
    });
    expect(second).toEqual({ status: 200, body: { ok: true, result: [] } });
  });

  it('releases a held poll as soon as its client disconnects', async () => {
    const first = (await call('getUpdates', json({ timeout: 0 }))).body.result as Array<{ update_id: number }>;
    const aborter = new AbortController();
    const held = call('getUpdates', {
      ...json({ offset: first[0]!.update_id + 1, timeout: 30 }),
      signal: aborter.signal,
    });
    await eventually(
      () => fake.heldPolls(),
      (n) => n === 1,
      'the poll held by the fake',
    );
    aborter.abort();
    await expect(held).rejects.toThrow();
    // Without abort handling the poll would stay held for 30 s and never be recorded in time.
    await fake.calls.waitForAttempt('getUpdates', (c) => c.body.timeout === 30, 1000);
    expect(fake.heldPolls()).toBe(0);
  });

  it('keeps message_thread_id on bot messages in forum topics', async () => {
    fake.sendUserMessage({ chatId: -100777, from: MAYA, text: 'in topic', messageThreadId: 9 });
    const sent = await api.sendMessage(-100777, 'reply in topic', { message_thread_id: 9 });
    expect(sent).toMatchObject({
      message_thread_id: 9,
      is_topic_message: true,
      chat: { id: -100777, type: 'supergroup', is_forum: true },
    });
    expect(fake.messages(-100777)[0]).toMatchObject({ message_thread_id: 9 });
  });
});
