// Slack conversations beyond a DM: a mention in a channel is answered in a thread of its own; replies in
// that thread continue it without a new mention; other channel chatter and other bots are ignored.
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startFakeLlm, type FakeLlm } from '../../fakes/llm-server.ts';
import { lastUserText } from '../../contract/support.ts';
import { dmOf, MAYA, OMAR, SAM, startSlackHarness, type SlackHarness } from './harness.ts';

const CHANNEL = 'C0TEAM';
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

const bot = (h: SlackHarness, channel: string) =>
  h.fake.messages(channel).filter((m) => m.user === h.fake.identity.botUserId);
const say = (text: string, thread_ts?: string, user = MAYA) =>
  h!.fake.signer.sendMessage(h!.url, { channel: CHANNEL, user: user.id, text, ...(thread_ts && { thread_ts }) });

describe('channels', () => {
  it('answers a mention in the mention’s thread, and replies there continue the conversation', async () => {
    h = await startSlackHarness({ modelBaseUrl: llm.baseURL });
    const mention = await say(`<@${h.fake.identity.botUserId}> what is &lt;this&gt;?`);
    expect(mention.mention?.status).toBe(200);
    await h.settled();
    expect(lastUserText(llm)).toBe('what is <this>?');
    expect(bot(h, CHANNEL).map((m) => [m.text, m.thread_ts])).toEqual([['echo: what is &lt;this&gt;?', mention.ts]]);

    await say('and a follow-up', mention.ts);
    await h.settled();
    expect(bot(h, CHANNEL).map((m) => [m.text, m.thread_ts])).toEqual([
      ['echo: what is &lt;this&gt;?', mention.ts],
      ['echo: and a follow-up', mention.ts],
    ]);
    // One conversation: the follow-up reached the model with the first exchange before it.
    expect(JSON.stringify(llm.requests.at(-1)?.messages)).toContain('what is <this>?');
    expect(llm.requests).toHaveLength(2);
  });

  it('ignores channel chatter, threads it is not in, and its own and other bots’ messages', async () => {
    h = await startSlackHarness({ modelBaseUrl: llm.baseURL });
    await say('morning all');
    const other = await say('a thread without Kazma');
    await say('reply in it', other.ts);
    await h.fake.signer.sendEvent(h.url, {
      type: 'message',
      subtype: 'bot_message',
      bot_id: 'BOTHER',
      text: `<@${h.fake.identity.botUserId}> hi`,
      ts: '1700000009.000001',
      channel: dmOf(MAYA),
      channel_type: 'im',
    });
    await h.settled();
    expect(bot(h, CHANNEL)).toEqual([]);
    expect(llm.requests).toHaveLength(0);
  });

  it('keeps two threads apart and answers a mention inside an existing thread there', async () => {
    h = await startSlackHarness({ modelBaseUrl: llm.baseURL });
    const me = `<@${h.fake.identity.botUserId}>`;
    const a = await say(`${me} first`);
    const b = await say('someone else’s thread', undefined, OMAR);
    await say(`${me} joining late`, b.ts);
    await h.settled();
    expect(bot(h, CHANNEL).map((m) => [m.text, m.thread_ts])).toEqual([
      ['echo: first', a.ts],
      ['echo: joining late', b.ts],
    ]);
    expect(llm.requests.at(-1)?.messages?.filter((m) => m.role === 'user')).toHaveLength(1); // a fresh conversation
  });

  it('tells a stranger who mentions it, once and only them', async () => {
    h = await startSlackHarness({ modelBaseUrl: llm.baseURL });
    const me = `<@${h.fake.identity.botUserId}>`;
    const first = await say(`${me} hi`, undefined, SAM);
    await say(`${me} hello?`, first.ts, SAM);
    await h.settled();
    expect(bot(h, CHANNEL)).toEqual([]);
    const told = h.fake.ephemerals(CHANNEL, SAM.id);
    expect(told.map((e) => [e.text, e.thread_ts])).toEqual([
      [expect.stringMatching(/^⛔ Sorry, you are not on this Kazma's access list;/), first.ts],
    ]);
    expect(llm.requests).toHaveLength(0);
  });
});
