// A streamed answer longer than one message (Telegram 4096, Discord 2000): once the words outgrow a
// message, the stream moves on to the next one while the model still writes, and the parts it ends as
// are exactly the parts the same answer sent whole (streaming off) is split into — no part twice.
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { longReply } from '../contract/support.ts';
import { startFakeLlm, type FakeLlm } from '../fakes/llm-server.ts';
import { eventually } from '../helpers/eventually.ts';
import * as discord from '../adapters/discord/harness.ts';
import * as telegram from '../adapters/telegram/harness.ts';

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

const GROUP = -1001000;

/** One platform's harness: the user asks, the texts of the bot's messages. */
interface Platform {
  limit: number;
  ask(): void;
  bot(): string[];
  settled(): Promise<void>;
  close(): Promise<void>;
}

const PLATFORMS: Record<'Telegram' | 'Discord', (config: Record<string, unknown>) => Promise<Platform>> = {
  async Telegram(config) {
    const h = await telegram.startHarness({ modelBaseUrl: llm.baseURL, groups: 'all', config });
    return {
      limit: 4096,
      ask: () => void h.say({ chatId: GROUP, from: telegram.MAYA, text: 'a long story, please' }),
      bot: () => h.fake.messages(GROUP).map((m) => m.text),
      settled: () => h.settled(),
      close: () => h.close(),
    };
  },
  async Discord(config) {
    const h = await discord.startHarness({ modelBaseUrl: llm.baseURL, config });
    const DM = discord.DM_OF[discord.MAYA.id]!;
    return {
      limit: 2000,
      ask: () => void h.say({ channelId: DM, author: discord.MAYA, content: 'a long story, please', guild: false }),
      bot: () =>
        h.fake
          .messages(DM)
          .filter((m) => m.author.id === h.fake.bot.id)
          .map((m) => m.content),
      settled: () => h.settled(),
      close: () => h.close(),
    };
  },
};

async function turn(platform: keyof typeof PLATFORMS, enabled: boolean) {
  const config = {
    streaming: {
      enabled,
      start_after: '0ms',
      telegram: { edit_interval: '100ms' },
      discord: { edit_interval: '100ms' },
    },
  };
  const p = await PLATFORMS[platform](config);
  close = () => p.close();
  const reply = longReply(p.limit);
  llm.script({ text: reply.markdown, pacing: { words: true, delayMs: 4 } });
  p.ask();
  await eventually(p.bot, (texts) => texts.length >= 2, 'a second message');
  const secondWhileWriting = llm.attempts.at(-1)!.endedAt === undefined;
  await p.settled();
  const result = { texts: p.bot(), secondWhileWriting };
  await p.close();
  close = undefined;
  return result;
}

describe.each(['Telegram', 'Discord'] as const)('%s', (platform) => {
  it('moves to the next message as the answer outgrows one; the parts equal the answer sent whole', async () => {
    const whole = await turn(platform, false);
    const live = await turn(platform, true);
    expect(whole.texts.length).toBeGreaterThanOrEqual(3);
    expect(live.texts).toEqual(whole.texts);
    // The stream moved on to a second message before the model wrote its last words.
    expect(live.secondWhileWriting).toBe(true);
  });
});
