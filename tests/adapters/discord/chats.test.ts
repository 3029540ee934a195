// Discord chats beyond a DM: guild channels answer only when the bot is mentioned (discord.guild_messages),
// threads are separate conversations answered in their thread, and a stranger in a guild is told once,
// by direct message.
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startFakeLlm, type FakeLlm } from '../../fakes/llm-server.ts';
import { DM_OF, GENERAL, MAYA, RANDOM, SAM, THREAD, startHarness, type Harness } from './harness.ts';

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

const botTexts = (channelId: string) =>
  h!.fake
    .messages(channelId)
    .filter((m) => m.author.id === h!.fake.bot.id)
    .map((m) => m.content);

describe('guild channels', () => {
  it('in mention mode answer a mention (without the mention) and ignore the rest', async () => {
    h = await startHarness({ modelBaseUrl: llm.baseURL });
    h.say({ channelId: GENERAL, author: MAYA, content: 'morning all' });
    h.say({ channelId: GENERAL, author: MAYA, content: 'ping', mentionsBot: true });
    h.say({ channelId: GENERAL, author: MAYA, content: '/status' });
    await h.settled();
    expect(botTexts(GENERAL)).toEqual(['echo: ping']);
    expect(llm.requests).toHaveLength(1);
  });

  it('with guild_messages: all answer every message', async () => {
    h = await startHarness({ modelBaseUrl: llm.baseURL, guildMessages: 'all' });
    h.say({ channelId: GENERAL, author: MAYA, content: 'morning all' });
    await h.settled();
    expect(botTexts(GENERAL)).toEqual(['echo: morning all']);
  });

  it('tell a stranger once, by direct message, and nothing reaches the agent', async () => {
    h = await startHarness({ modelBaseUrl: llm.baseURL, guildMessages: 'all' });
    for (const content of ['one', 'two']) h.say({ channelId: GENERAL, author: SAM, content });
    h.say({ channelId: RANDOM, author: SAM, content: 'three' });
    await h.settled();
    expect(botTexts(GENERAL)).toEqual([]);
    expect(botTexts(RANDOM)).toEqual([]);
    expect(h.fake.calls.count('POST /users/@me/channels')).toBe(1); // the DM is opened once and remembered
    const dm = h.fake.calls.all('POST /channels/:id/messages').map((c) => c.params.id);
    expect(new Set(dm).size).toBe(1);
    const refusals = h.fake.messages(dm[0]!).map((m) => m.content);
    expect(refusals).toEqual([
      expect.stringMatching(/^⛔ Sorry, you are not on this Kazma's access list/),
      expect.stringMatching(/^⛔ Sorry/),
    ]);
    expect(llm.requests).toHaveLength(0);
  });

  it('lets anyone talk in a channel on access.chats, and in its threads', async () => {
    h = await startHarness({
      modelBaseUrl: llm.baseURL,
      config: { access: { operators: [{ name: 'Maya', discord: MAYA.id }], chats: [`discord:${GENERAL}`] } },
    });
    h.say({ channelId: GENERAL, author: SAM, content: 'hi from an allowed channel', mentionsBot: true });
    h.say({ channelId: THREAD, author: SAM, content: 'and from its thread', mentionsBot: true });
    await h.settled();
    expect(botTexts(GENERAL)).toEqual(['echo: hi from an allowed channel']);
    expect(botTexts(THREAD)).toEqual(['echo: and from its thread']);
  });
});

describe('threads', () => {
  it('keep each thread its own conversation, answered in the thread, a new thread too', async () => {
    h = await startHarness({ modelBaseUrl: llm.baseURL, guildMessages: 'all' });
    const fresh = '1200000000000000099';
    h.say({ channelId: THREAD, author: MAYA, content: 'in the old thread' });
    h.say({ channelId: fresh, author: MAYA, content: 'in a new thread', threadParent: GENERAL });
    await h.settled();
    expect(botTexts(THREAD)).toEqual(['echo: in the old thread']);
    expect(botTexts(fresh)).toEqual(['echo: in a new thread']);
    expect(botTexts(GENERAL)).toEqual([]);
    const second = llm.requests.find((r) => JSON.stringify(r.messages).includes('in a new thread'))!;
    expect(JSON.stringify(second.messages)).not.toContain('in the old thread');
    h.say({ channelId: THREAD, author: MAYA, content: '/status' });
    await h.settled();
    expect(botTexts(THREAD).at(-1)).toMatch(new RegExp(`thread: discord:${GENERAL}:${THREAD}#0`));
    expect(h.fake.calls.all('POST /channels/:id/typing').map((c) => c.params.id)).toEqual(
      expect.arrayContaining([THREAD, fresh]),
    );
  });

  it('answers in a DM without a mention', async () => {
    h = await startHarness({ modelBaseUrl: llm.baseURL });
    h.say({ channelId: DM_OF[MAYA.id]!, author: MAYA, content: 'just us', guild: false });
    await h.settled();
    expect(botTexts(DM_OF[MAYA.id]!)).toEqual(['echo: just us']);
  });
});
