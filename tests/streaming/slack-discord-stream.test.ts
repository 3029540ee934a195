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

/** One platform's harness, as the test needs it: the user asks, the bot's messages' texts and edits. */
interface Platform {
  ask(): Promise<void>;
  bot(): Array<{ text: string; edits: number }>;
  settled(): Promise<void>;
  close(): Promise<void>;
}

const PLATFORMS: Record<'Slack' | 'Discord', (config: Record<string, unknown>) => Promise<Platform>> = {
  async Slack(config) {
    const h = await slack.startSlackHarness({ modelBaseUrl: llm.baseURL, config });
    const DM = slack.dmOf(slack.MAYA);
    return {
      ask: async () =>
        void (await h.fake.signer.sendMessage(h.url, { channel: DM, user: slack.MAYA.id, text: 'how do I check?' })),
      bot: () =>
        h.fake
          .messages(DM)
          .filter((m) => m.user === h.fake.identity.botUserId)
          .map((m) => ({ text: m.text, edits: m.edits.length })),
      settled: () => h.settled(),
      close: () => h.close(),
    };
  },
  async Discord(config) {
    const h = await discord.startHarness({ modelBaseUrl: llm.baseURL, config });
    const DM = discord.DM_OF[discord.MAYA.id]!;
    return {
      ask: async () => void h.say({ channelId: DM, author: discord.MAYA, content: 'how do I check?', guild: false }),
      bot: () =>
        h.fake
          .messages(DM)
          .filter((m) => m.author.id === h.fake.bot.id)
          .map((m) => ({ text: m.content, edits: m.edits.length })),
      settled: () => h.settled(),
      close: () => h.close(),
    };
  },
};

/** One paced answer on `platform`, streamed or not: its bot messages, when the first showed, when the model ended. */
async function turn(platform: keyof typeof PLATFORMS, enabled: boolean) {
  const p = await PLATFORMS[platform](streaming(enabled));
  close = () => p.close();
  llm.script(PACED);
  await p.ask();
  await eventually(p.bot, (messages) => messages.length > 0, 'the first message');
  const firstShownAt = Date.now();
  await p.settled();
  const result = { messages: p.bot(), firstShownAt, ended: llm.attempts.at(-1)!.endedAt! };
  await p.close();
  close = undefined;
  return result;
}

describe.each(['Slack', 'Discord'] as const)('%s', (platform) => {
  it('edits one message as the model writes, ending as the answer sent whole', async () => {
    const whole = await turn(platform, false);
    const live = await turn(platform, true);
    expect(live.firstShownAt).toBeLessThan(live.ended);
    expect(live.messages).toHaveLength(1);
    expect(live.messages[0]!.edits).toBeGreaterThan(0);
    expect(live.messages.map((m) => m.text)).toEqual(whole.messages.map((m) => m.text));
    expect(whole.messages[0]!.edits).toBe(0);
  });
});
