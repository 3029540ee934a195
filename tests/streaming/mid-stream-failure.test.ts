// A model that fails in the middle of its answer: a retry writes the same draft again, so the person
// still gets one message that ends as the whole answer; when every try fails, what was shown stays and
// the honest ⚠️ follows it.
import { afterAll, afterEach, beforeAll, expect, it } from 'vitest';
import { startFakeLlm, type FakeLlm } from '../fakes/llm-server.ts';
import { eventually } from '../helpers/eventually.ts';
import { MAYA, startHarness, type Harness } from '../adapters/telegram/harness.ts';

/** A group: answers are messages, sent then edited (private chats get draft previews). */
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
});

const ANSWER = Array.from({ length: 30 }, (_, i) => `part${i}`).join(' ');
const config = { streaming: { start_after: '0ms', telegram: { edit_interval: '200ms' } } };

it('a retry after a cut-off stream rewrites the draft: one message, the whole answer', async () => {
  h = await startHarness({ modelBaseUrl: llm.baseURL, groups: 'all', config });
  llm.script(
    { text: ANSWER, pacing: { words: true, delayMs: 30, cutAfter: 15 } },
    { text: ANSWER, pacing: { words: true, delayMs: 10 } },
  );
  h.say({ chatId: GROUP, from: MAYA, text: 'go' });
  await h.settled();
  const messages = h.fake.messages(GROUP);
  expect(messages.map((m) => m.text)).toEqual([ANSWER]);
  // The cut-off try was shown before the retry wrote over it.
  expect(messages[0]!.history.length).toBeGreaterThan(0);
  expect(llm.attempts.filter((a) => a.body.stream)).toHaveLength(2);
});

it('when every try fails mid-answer, the partial stays and the ⚠️ follows it', async () => {
  h = await startHarness({ modelBaseUrl: llm.baseURL, groups: 'all', config });
  const cut = { text: ANSWER, pacing: { words: true, delayMs: 30, cutAfter: 15 } };
  llm.script(cut, cut);
  h.say({ chatId: GROUP, from: MAYA, text: 'go' });
  await eventually(
    () => h!.fake.messages(GROUP).length,
    (n) => n >= 2,
    'the partial and the warning',
  );
  await h.settled();
  const [partial, warning, ...rest] = h.fake.messages(GROUP).map((m) => m.text);
  expect(rest).toEqual([]);
  expect(ANSWER.startsWith(partial!)).toBe(true);
  expect(partial!.length).toBeGreaterThan(0);
  expect(partial!.length).toBeLessThan(ANSWER.length);
  expect(warning).toMatch(/^⚠️/);
});

it('a fallback taking over keeps the failed partial, says so, and answers in a message of its own', async () => {
  const model = { name: 'fake-model', base_url: llm.baseURL, max_retries: 0 };
  const fallbacks = [{ name: 'fake-backup', base_url: llm.baseURL }];
  h = await startHarness({
    modelBaseUrl: llm.baseURL,
    groups: 'all',
    config: { ...config, model: { ...model, fallbacks } },
  });
  const backup = 'The backup answer, whole.';
  llm.script(
    { text: ANSWER, pacing: { words: true, delayMs: 30, cutAfter: 15 } },
    { text: backup, pacing: { words: true, delayMs: 30 } },
  );
  h.say({ chatId: GROUP, from: MAYA, text: 'go' });
  await h.settled();
  const [partial, answer, ...rest] = h.fake.messages(GROUP).map((m) => m.text);
  expect(rest).toEqual([]);
  const [words, line] = partial!.split('\n\n');
  expect(ANSWER.startsWith(words!)).toBe(true);
  expect(words!.length).toBeLessThan(ANSWER.length);
  expect(line).toBe('⚠️ The model stopped mid-answer; fallback openai:fake-backup answers below.');
  expect(answer).toBe(`${backup}\n\n(answered by fallback openai:fake-backup)`);
});
