// A Slack stream a stopped process left open (its draft recorded with `stream: true`) is healed by the next
// process as any draft: the stream is stopped, then the message is updated to the interrupted notice. Two
// SlackPlatforms (two processes' adapters) against one fake Slack, with a stub core link.
import { Hono } from 'hono';
import { afterEach, expect, it } from 'vitest';
import { SlackPlatform } from '../../src/adapters/slack/index.ts';
import { createLogger } from '../../src/core/log/index.ts';
import { INTERRUPTED_TEXT } from '../../src/core/streaming/index.ts';
import { startFakeSlack, type FakeSlack } from '../fakes/slack/index.ts';

const logger = createLogger({ level: process.env.KAZMA_TEST_LOG ?? 'silent', pretty: false });
const cleanup: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const step of cleanup.splice(0).reverse()) await step();
});

async function platform(fake: FakeSlack): Promise<SlackPlatform> {
  const core = {
    pipeline: { accept: async () => ({ status: 'accepted' as const, done: Promise.resolve('handled' as const) }) },
    attachSurface: () => () => {},
  };
  const config = {
    enabled: true,
    token: fake.botToken,
    signing_secret: fake.signingSecret,
    mode: 'http' as const,
    app_token: '',
    api_url: fake.apiUrl,
  };
  const p = new SlackPlatform({ core, app: new Hono(), logger, retry: { retries: 0 }, config });
  await p.start();
  cleanup.push(() => p.stop());
  return p;
}

it('stops a stream left open by a stopped process and updates it to the interrupted notice', async () => {
  const fake = await startFakeSlack();
  cleanup.push(() => fake.close());
  const first = await platform(fake);
  const { id: thread } = await first.surface.send('slack:D0MAYA', { text: 'A thread to answer in' });
  const chat = `slack:D0MAYA:${thread}` as const;
  const maya = { platform: 'slack', id: 'U0MAYA' };
  const words = 'Half an **answer**';
  const [ref] = await first.surface.showDraft(chat, { text: words, written: words, recipient: maya });
  expect(ref).toMatchObject({ chat, stream: true });
  // The first process is gone; the next one heals the recorded draft through the same Surface call.
  const next = await platform(fake);
  await next.surface.showDraft(chat, { text: INTERRUPTED_TEXT, written: INTERRUPTED_TEXT }, [ref!]);
  const message = fake.messages('D0MAYA').find((m) => m.ts === ref!.id)!;
  expect(message.text).toBe(INTERRUPTED_TEXT);
  expect(fake.calls.of('chat.stopStream').map((c) => c.ok)).toEqual([true]);
  expect(fake.calls.of('chat.update').filter((c) => c.ok)).toHaveLength(1);
  expect(fake.messages('D0MAYA').filter((m) => m.thread_ts === thread)).toHaveLength(1);
});
