// Telegram chats beyond a DM: groups answer only when addressed (telegram.groups), forum topics are
// separate conversations answered in their topic, and strangers get one refusal per chat per day.
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startFakeLlm, type FakeLlm } from '../../fakes/llm-server.ts';
import { LINA, MAYA, SAM, startHarness, type Harness } from './harness.ts';

const GROUP = -1001000;
const FORUM = -1002000;
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

const texts = (chatId: number) => h!.fake.messages(chatId).map((m) => m.text);

describe('groups', () => {
  it('in mention mode answers a mention, a reply to the bot and a command, and ignores the rest', async () => {
    h = await startHarness({ modelBaseUrl: llm.baseURL });
    h.say({ chatId: GROUP, from: MAYA, text: 'morning all' });
    h.say({ chatId: GROUP, from: MAYA, text: '@kazma_test_bot ping' });
    await h.settled();
    expect(texts(GROUP)).toEqual(['echo: ping']);
    const botMessage = h.fake.messages(GROUP)[0]!.message_id;
    h.say({ chatId: GROUP, from: MAYA, text: 'and pong?', replyToBotMessage: botMessage });
    await h.settled();
    h.say({ chatId: GROUP, from: MAYA, text: '/help@other_bot' });
    h.say({ chatId: GROUP, from: MAYA, text: '/status@kazma_test_bot' });
    await h.settled();
    expect(texts(GROUP).slice(1, 2)).toEqual(['echo: and pong?']);
    expect(texts(GROUP)[2]).toMatch(/^Kazma status\n/);
    expect(texts(GROUP)).toHaveLength(3);
    expect(llm.requests).toHaveLength(2);
  });

  it('with groups: all answers every message', async () => {
    h = await startHarness({ modelBaseUrl: llm.baseURL, groups: 'all' });
    h.say({ chatId: GROUP, from: MAYA, text: 'morning all' });
    await h.settled();
    expect(texts(GROUP)).toEqual(['echo: morning all']);
  });

  it('lets anyone talk in a chat on access.chats, and tells a stranger elsewhere once per chat', async () => {
    h = await startHarness({
      modelBaseUrl: llm.baseURL,
      groups: 'all',
      config: { access: { operators: [{ name: 'Maya', telegram: '42' }], chats: [`telegram:${GROUP}`] } },
    });
    h.say({ chatId: GROUP, from: SAM, text: 'hi from an allowed chat' });
    await h.settled();
    expect(texts(GROUP)).toEqual(['echo: hi from an allowed chat']);

    const other = -1003000;
    const third = -1004000;
    for (const text of ['one', 'two', 'three']) h.say({ chatId: other, from: SAM, text });
    h.say({ chatId: third, from: SAM, text: 'four' });
    await h.settled();
    // Sam never opened the bot, so the refusal cannot go to a DM: it is said where he wrote, once per chat.
    const refusal = /^⛔ Sorry, you are not on this Kazma's access list; .*an operator can add "telegram:777"/;
    expect(texts(other)).toEqual([expect.stringMatching(refusal)]);
    expect(texts(third)).toEqual([expect.stringMatching(refusal)]);
    expect(llm.requests).toHaveLength(1);
  });

  it('sends a refusal as a direct message when the stranger has one open with the bot (after their pairing code)', async () => {
    h = await startHarness({ modelBaseUrl: llm.baseURL, groups: 'all' });
    h.say({ chatId: LINA.id + 1000, from: { id: LINA.id + 1000, first_name: 'Nour' }, text: 'hello bot' }); // opens the DM
    h.say({ chatId: GROUP, from: { id: LINA.id + 1000, first_name: 'Nour' }, text: 'hello group' });
    await h.settled();
    expect(texts(GROUP)).toEqual([]);
    // The two are told as each event is handled, in either order.
    expect(texts(LINA.id + 1000).sort()).toEqual([
      expect.stringMatching(/^⛔ Sorry, .*write to me in private to get a pairing code/),
      expect.stringMatching(/^👋 Hi! .*\/pair [A-Z2-9]{8} /s),
    ]);
  });
});

describe('forum topics', () => {
  it('keeps each topic its own conversation and answers in the same topic', async () => {
    h = await startHarness({ modelBaseUrl: llm.baseURL, groups: 'all' });
    h.say({ chatId: FORUM, from: MAYA, text: 'in topic seven', messageThreadId: 7 });
    h.say({ chatId: FORUM, from: MAYA, text: 'in topic nine', messageThreadId: 9 });
    await h.settled();
    const byTopic = (topic: number) =>
      h!.fake
        .messages(FORUM)
        .filter((m) => m.message_thread_id === topic)
        .map((m) => m.text);
    expect(byTopic(7)).toEqual(['echo: in topic seven']);
    expect(byTopic(9)).toEqual(['echo: in topic nine']);
    // Separate threads: the model in topic 9 never saw topic 7.
    const topic9 = llm.requests.find((r) => JSON.stringify(r.messages).includes('in topic nine'))!;
    expect(JSON.stringify(topic9.messages)).not.toContain('in topic seven');
    h.say({ chatId: FORUM, from: MAYA, text: '/status', messageThreadId: 9 });
    await h.settled();
    expect(byTopic(9).at(-1)).toMatch(new RegExp(`thread: telegram:${FORUM}:9#0`));
    const actions = h.fake.calls.of('sendChatAction').map((c) => c.body.message_thread_id);
    expect(actions).toEqual(expect.arrayContaining([7, 9]));
  });
});
