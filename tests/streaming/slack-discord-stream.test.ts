// A streamed answer on Slack and Discord, with the real adapters against the fake platforms and a fake
// model that writes ~60 words over ~2.5 s: a partial shows before the model's last chunk, and the one
// message ends exactly as the same answer sent whole (streaming off) looks.
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startFakeLlm, type FakeLlm } from '../fakes/llm-server.ts';
import { eventually } from '../helpers/eventually.ts';
import * as discord from '../adapters/discord/harness.ts';
import * as slack from '../adapters/slack/harness.ts';

let llm: FakeLlm;
let close: (() => Promise<void>) | undefined;
beforeAll(async () => {
  llm = await startFakeLlm();
});
afterAll(async () => {
  await llm.close();
});
afterEach(async () => {
  await close?.();
  close = undefined;
});

const ANSWER = Array.from({ length: 12 }, (_, i) => `Step ${i + 1}: **check** the مرحبا بالعالم 👨‍👩‍👧 logs.`).join(
  ' ',
);
const PACED = { text: ANSWER, pacing: { words: true, delayMs: 40 } };
const streaming = (enabled: boolean) => ({ streaming: { enabled, start_after: '200ms' } });

describe('Slack', () => {
  const DM = slack.dmOf(slack.MAYA);
  async function turn(enabled: boolean) {
    const h = await slack.startSlackHarness({ modelBaseUrl: llm.baseURL, config: streaming(enabled) });
    close = () => h.close();
    llm.script(PACED);
    await h.fake.signer.sendMessage(h.url, { channel: DM, user: slack.MAYA.id, text: 'how do I check?' });
    const bot = () => h.fake.messages(DM).filter((m) => m.user === h.fake.identity.botUserId);
    await eventually(bot, (messages) => messages.length > 0, 'the first message');
    const firstShownAt = Date.now();
    await h.settled();
    const result = { messages: bot(), firstShownAt, ended: llm.attempts.at(-1)!.endedAt! };
    await h.close();
    close = undefined;
    return result;
  }

  it('updates one message as the model writes, ending as the answer sent whole', async () => {
    const whole = await turn(false);
    const live = await turn(true);
    expect(live.firstShownAt).toBeLessThan(live.ended);
    expect(live.messages).toHaveLength(1);
    expect(live.messages[0]!.edits.length).toBeGreaterThan(0);
    expect(live.messages.map((m) => m.text)).toEqual(whole.messages.map((m) => m.text));
    expect(whole.messages[0]!.edits).toHaveLength(0);
  });
});

describe('Discord', () => {
  const DM = discord.DM_OF[discord.MAYA.id]!;
  async function turn(enabled: boolean) {
    const h = await discord.startHarness({ modelBaseUrl: llm.baseURL, config: streaming(enabled) });
    close = () => h.close();
    llm.script(PACED);
    h.say({ channelId: DM, author: discord.MAYA, content: 'how do I check?', guild: false });
    const bot = () => h.fake.messages(DM).filter((m) => m.author.id === h.fake.bot.id);
    await eventually(bot, (messages) => messages.length > 0, 'the first message');
    const firstShownAt = Date.now();
    await h.settled();
    const result = { messages: bot(), firstShownAt, ended: llm.attempts.at(-1)!.endedAt! };
    await h.close();
    close = undefined;
    return result;
  }

  it('edits one message as the model writes, ending as the answer sent whole', async () => {
    const whole = await turn(false);
    const live = await turn(true);
    expect(live.firstShownAt).toBeLessThan(live.ended);
    expect(live.messages).toHaveLength(1);
    expect(live.messages[0]!.edits.length).toBeGreaterThan(0);
    expect(live.messages.map((m) => m.content)).toEqual(whole.messages.map((m) => m.content));
    expect(whole.messages[0]!.edits).toHaveLength(0);
  });
});
