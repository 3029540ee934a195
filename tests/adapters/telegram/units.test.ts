// The Telegram adapter's pure parts: ids, card rendering and the 64-byte callback limit, which group
// messages are for the bot, tap answers, the typing refresher, and transport retries.
import { HttpError } from 'grammy';
import type { Message } from 'grammy/types';
import { describe, expect, it } from 'vitest';
import { CallbackAnswers, fitAnswer } from '../../../src/adapters/telegram/answers.ts';
import {
  CALLBACK_DATA_MAX_BYTES,
  CallbackCodec,
  renderCard,
  sameCard,
  tappedLabel,
} from '../../../src/adapters/telegram/cards.ts';
import { retryTransport } from '../../../src/adapters/telegram/client.ts';
import { describeWebhook } from '../../../src/adapters/telegram/doctor.ts';
import { chatRefOf, displayNameOf, targetOf } from '../../../src/adapters/telegram/ids.ts';
import { addressedText } from '../../../src/adapters/telegram/inbound.ts';
import { TypingRefresher } from '../../../src/core/chat/intake/typing-refresher.ts';
import { approvalActionId } from '../../../src/core/approvals/card.ts';
import { newGateId } from '../../../src/core/approvals/gate-store.ts';

const ME = { id: 7000000001, username: 'kazma_test_bot' };
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('ids', () => {
  it('gives a forum topic its own ChatRef and reads it back as chat + message_thread_id', () => {
    const chat = { id: -1001234, type: 'supergroup' as const, title: 'ops', is_forum: true as const };
    expect(chatRefOf({ chat, message_thread_id: 7, is_topic_message: true })).toBe('telegram:-1001234:7');
    expect(chatRefOf({ chat, message_thread_id: 7 })).toBe('telegram:-1001234'); // a reply thread, not a topic
    expect(targetOf('telegram:-1001234:7')).toEqual({ chatId: -1001234, threadId: 7 });
    expect(targetOf('telegram:42')).toEqual({ chatId: 42 });
    expect(() => targetOf('slack:C1')).toThrow(/not a Telegram chat/);
  });

  it('names people by first and last name, else @username, else id', () => {
    expect(displayNameOf({ id: 1, first_name: 'Maya', last_name: 'Haddad' })).toBe('Maya Haddad');
    expect(displayNameOf({ id: 1, first_name: '', username: 'maya' })).toBe('@maya');
  });
});

describe('cards', () => {
  const card = {
    title: 'Approve write_file?',
    fields: [{ label: 'Arguments', value: '{"path":"a<b>.txt"}' }],
    buttons: [
      { id: 'apv:abc:once', label: 'Approve', style: 'primary' as const },
      { id: 'apv:abc:deny', label: 'Deny', style: 'danger' as const },
    ],
  };

  it('renders escaped HTML and one row of buttons; a settled card has a footer and no keyboard', () => {
    const codec = new CallbackCodec();
    const open = renderCard(card, codec);
    expect(open.html).toBe('<b>Approve write_file?</b>\n<b>Arguments:</b> {"path":"a&lt;b&gt;.txt"}');
    expect(open.keyboard).toEqual({
      inline_keyboard: [
        [
          { text: 'Approve', callback_data: 'apv:abc:once' },
          { text: 'Deny', callback_data: 'apv:abc:deny' },
        ],
      ],
    });
    const settled = renderCard({ ...card, buttons: [], footer: 'Approved once by Maya' }, codec);
    expect(settled.keyboard).toBeUndefined();
    expect(settled.html.endsWith('\n\n<i>Approved once by Maya</i>')).toBe(true);
    expect(sameCard(open, renderCard(card, codec))).toBe(true);
    expect(sameCard(open, settled)).toBe(false);
  });

  it('the core’s approval button ids fit in 64 bytes and travel verbatim', () => {
    const codec = new CallbackCodec();
    for (const decision of ['once', 'always', 'deny'] as const) {
      const id = approvalActionId(newGateId(), decision);
      expect(Buffer.byteLength(id)).toBeLessThanOrEqual(CALLBACK_DATA_MAX_BYTES);
      expect(codec.encode(id)).toBe(id);
    }
  });

  it('encodes a longer id (counted in UTF-8 bytes) as a digest within 64 bytes, and decodes it back', () => {
    const codec = new CallbackCodec();
    const arabic = `apv:${'ك'.repeat(31)}:once`; // 40 characters, 71 bytes
    const data = codec.encode(arabic);
    expect(Buffer.byteLength(data)).toBeLessThanOrEqual(CALLBACK_DATA_MAX_BYTES);
    expect(data).not.toBe(arabic);
    expect(codec.decode(data)).toBe(arabic);
    expect(codec.decode('~unknown-digest')).toBe('~unknown-digest');
    expect(tappedLabel({ inline_keyboard: [[{ text: 'Go', callback_data: data }]] }, data)).toBe('Go');
  });
});

describe('which group messages are for the bot', () => {
  const message = (text: string, extra: Partial<Message> = {}): Message & { text: string } =>
    ({
      message_id: 1,
      date: 0,
      chat: { id: -100, type: 'supergroup', title: 'g' },
      from: { id: 5, is_bot: false, first_name: 'A' },
      text,
      ...extra,
    }) as Message & { text: string };

  it('in mention mode: a mention (removed when leading), a reply to the bot, or a command', () => {
    expect(addressedText(message('hello all'), ME, 'mention')).toBeUndefined();
    expect(addressedText(message('@kazma_test_bot what time is it?'), ME, 'mention')).toBe('what time is it?');
    expect(addressedText(message('ask @Kazma_Test_Bot please'), ME, 'mention')).toBe('ask @Kazma_Test_Bot please');
    expect(addressedText(message('mail me@kazma_test_bot.example'), ME, 'mention')).toBeUndefined();
    const reply = {
      reply_to_message: {
        message_id: 9,
        date: 0,
        chat: { id: -100, type: 'supergroup', title: 'g' },
        from: { id: ME.id, is_bot: true, first_name: 'K' },
      },
    } as Partial<Message>;
    expect(addressedText(message('and then?', reply), ME, 'mention')).toBe('and then?');
    expect(addressedText(message('/status'), ME, 'mention')).toBe('/status');
    expect(addressedText(message('/status@kazma_test_bot'), ME, 'mention')).toBe('/status@kazma_test_bot');
  });

  it('commands addressed to another bot are never ours; `all` takes everything else', () => {
    expect(addressedText(message('/help@other_bot'), ME, 'all')).toBeUndefined();
    expect(addressedText(message('hello all'), ME, 'all')).toBe('hello all');
    const dm = message('hi', { chat: { id: 5, type: 'private', first_name: 'A' } } as Partial<Message>);
    expect(addressedText(dm, ME, 'mention')).toBe('hi');
  });
});

describe('tap answers', () => {
  const recorder = () => {
    const answers: Array<{ id: string; text: string; alert: boolean }> = [];
    return {
      answers,
      answer: async (id: string, a: { text: string; alert: boolean }) => (answers.push({ id, ...a }), true),
    };
  };

  it('a private text goes to that person’s oldest open tap, as an alert; a settled card to its oldest open tap', async () => {
    const r = recorder();
    const answers = new CallbackAnswers({ answer: r.answer });
    answers.open({ id: 'q1', chatId: '42', actorId: '42', messageKey: '42/7' });
    answers.open({ id: 'q2', chatId: '42', actorId: '43', messageKey: '42/7' });
    expect(await answers.privately('42', '55', 'nobody')).toBe(false);
    expect(await answers.settled('42/7', 'Approved once by Maya')).toBe(true);
    expect(await answers.privately('42', '43', 'Already decided')).toBe(true);
    await answers.finish('q1', 'late');
    expect(r.answers).toEqual([
      { id: 'q1', text: 'Approved once by Maya', alert: false },
      { id: 'q2', text: 'Already decided', alert: true },
    ]);
    expect(answers.size).toBe(0);
  });

  it('a tap nothing answered gets a neutral answer after the timeout; texts are cut to 200 characters', async () => {
    const r = recorder();
    const answers = new CallbackAnswers({ answer: r.answer, timeoutMs: 50 });
    answers.open({ id: 'q1', chatId: '42', actorId: '42' });
    await sleep(120);
    expect(r.answers).toEqual([{ id: 'q1', text: '', alert: false }]);
    const cut = fitAnswer('ب'.repeat(300));
    expect([...cut]).toHaveLength(200);
    expect(cut.endsWith('…')).toBe(true);
  });
});

describe('typing refresher', () => {
  it('repeats the action until stopped, and stops on its own after maxMs', async () => {
    const sent: string[] = [];
    const typing = new TypingRefresher({ send: async (chat) => void sent.push(chat), intervalMs: 30, maxMs: 1000 });
    await typing.start('telegram:1');
    await typing.start('telegram:1'); // already active: no second loop
    await sleep(100);
    typing.stop('telegram:1');
    const count = sent.length;
    expect(count).toBeGreaterThanOrEqual(3);
    await sleep(80);
    expect(sent.length).toBe(count);

    const capped = new TypingRefresher({ send: async () => void sent.push('x'), intervalMs: 20, maxMs: 60 });
    await capped.start('telegram:2');
    await sleep(120);
    expect(capped.isActive('telegram:2')).toBe(false);
  });

  it('gives up on a chat whose action fails (e.g. the bot was removed)', async () => {
    const typing = new TypingRefresher({
      send: async () => {
        throw new Error('403');
      },
      intervalMs: 20,
    });
    await typing.start('telegram:3');
    expect(typing.isActive('telegram:3')).toBe(false);
  });
});

describe('doctor: the webhook state against the mode', () => {
  it('fine in polling mode; in webhook mode fails when unset, pointing elsewhere, or failing', () => {
    expect(describeWebhook({ mode: 'polling', webhook_url: '' }, { url: '', pending_update_count: 0 })).toMatch(
      /no webhook set/,
    );
    expect(() => describeWebhook({ mode: 'webhook', webhook_url: '' }, { url: '', pending_update_count: 0 })).toThrow(
      /no webhook is set/,
    );
    expect(() =>
      describeWebhook(
        { mode: 'webhook', webhook_url: 'https://a/telegram/webhook' },
        { url: 'https://b/telegram/webhook', pending_update_count: 0 },
      ),
    ).toThrow(/restart Kazma/);
    expect(() =>
      describeWebhook(
        { mode: 'webhook', webhook_url: '' },
        { url: 'https://a', pending_update_count: 3, last_error_message: 'Wrong response from the webhook: 401' },
      ),
    ).toThrow(/401/);
    expect(
      describeWebhook({ mode: 'webhook', webhook_url: 'https://a' }, { url: 'https://a', pending_update_count: 1 }),
    ).toBe('Telegram posts to https://a (1 update waiting)');
  });
});

describe('transport retries', () => {
  const payload = {} as never;
  const failing = (failures: number, error: () => Error) => {
    let calls = 0;
    const prev = async () => {
      calls++;
      if (calls <= failures) throw error();
      return { ok: true as const, result: 'sent' };
    };
    return { prev: prev as never, calls: () => calls };
  };
  const reset = () => new HttpError("Network request for 'sendMessage' failed!", new Error('socket hang up'));

  it('retries a call that got no answer, a few times, then gives up', async () => {
    const twice = failing(2, reset);
    await expect(retryTransport(3)(twice.prev, 'sendMessage', payload)).resolves.toEqual({ ok: true, result: 'sent' });
    expect(twice.calls()).toBe(3);
    const always = failing(99, reset);
    await expect(retryTransport(2)(always.prev, 'sendMessage', payload)).rejects.toBeInstanceOf(HttpError);
    expect(always.calls()).toBe(3);
  });

  it('never retries an answer from Telegram or a call aborted on purpose', async () => {
    const refused = failing(1, () => new Error('Bad Request'));
    await expect(retryTransport(3)(refused.prev, 'sendMessage', payload)).rejects.toThrow('Bad Request');
    expect(refused.calls()).toBe(1);
    const aborted = failing(1, reset);
    await expect(
      retryTransport(3)(aborted.prev, 'getUpdates', payload, AbortSignal.abort() as never),
    ).rejects.toBeInstanceOf(HttpError);
    expect(aborted.calls()).toBe(1);
  });
});
