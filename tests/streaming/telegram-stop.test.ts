// `/stop` while an answer streams on Telegram, with the real adapter against the fake Bot API and a fake
// model that writes ~60 words over ~6 s: the model's connection is closed at once, the partial message
// stays with "⏹ Stopped." appended (once), and the message queued behind the turn is answered with the
// conversation as it was.
import { afterAll, afterEach, beforeAll, expect, it } from 'vitest';
import { transcript } from '../agent/helpers/core.ts';
import { startFakeLlm, type FakeLlm } from '../fakes/llm-server.ts';
import { eventually } from '../helpers/eventually.ts';
import { MAYA, startHarness, type Harness } from '../adapters/telegram/harness.ts';

/** A group: the partial is a message, edited (a private chat gets draft previews instead). */
const GROUP = -1001000;
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
  llm.attempts.length = 0;
  llm.requests.length = 0;
});

const ANSWER = Array.from({ length: 60 }, (_, i) => `word${i + 1}`).join(' ');

it('/stop mid-stream closes the model connection, keeps the partial with one notice, and the chat goes on', async () => {
  h = await startHarness({
    modelBaseUrl: llm.baseURL,
    groups: 'all',
    config: { streaming: { start_after: '100ms', telegram: { edit_interval: '200ms' } } },
  });
  h.say({ chatId: GROUP, from: MAYA, text: 'hi' });
  await h.settled();
  llm.script({ text: ANSWER, pacing: { words: true, delayMs: 100 } });
  h.say({ chatId: GROUP, from: MAYA, text: 'count for me' });
  await eventually(
    () => h!.fake.messages(GROUP),
    (messages) => messages.length === 2 && messages[1]!.text.includes('word5'),
    'the partial answer',
  );
  const streaming = llm.attempts.at(-1)!;
  // Waits behind the running turn, in the chat's order.
  h.say({ chatId: GROUP, from: MAYA, text: 'and now?' });
  const stoppedAt = Date.now();
  h.say({ chatId: GROUP, from: MAYA, text: '/stop' });
  await eventually(
    () => streaming.closedAt,
    (at) => at,
    'the model connection to close',
  );
  expect(streaming.closedAt! - stoppedAt).toBeLessThan(2_000);
  expect(streaming.endedAt).toBeUndefined();
  await h.settled();
  await eventually(
    () => h!.fake.messages(GROUP).map((m) => m.text),
    (texts) => texts.length === 3 && texts,
    'the queued message answered',
  );
  const texts = h.fake.messages(GROUP).map((m) => m.text);
  // The partial stays where it was shown, the notice appended to it, once; nothing else says "Stopped".
  expect(texts.filter((text) => text.includes('Stopped'))).toHaveLength(1);
  expect(texts[1]).toMatch(/^word1 word2 .*word5.*\n\n⏹ Stopped\.$/s);
  expect(texts[1]!.length).toBeLessThan(ANSWER.length);
  expect(texts[2]).toBe('echo: and now?');
  // The next turn continues the conversation: the earlier turns are there, the stop notice is not sent.
  expect(transcript(llm.requests.at(-1)!)).toEqual([
    'user:hi',
    'assistant:echo: hi',
    'user:count for me',
    'user:and now?',
  ]);
});
