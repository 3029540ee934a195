// A streamed answer is read in batches (streamed-answer.ts): each read after a pause wakes the process, so
// the events that come within an edit interval are read together — and the first words at once, since the
// answer's first sight is what a person waits for. A batch is what one read hands over: the words of one read
// are told in one synchronous run, so a word told in a new run begins a new batch (counted exactly, no clock).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type AnswerWords, withAnswerWords } from '../../../src/core/agent/model/answer-words.ts';
import { createChatModel } from '../../../src/core/agent/model/model-factory.ts';
import { type FakeLlm, startFakeLlm } from '../../fakes/llm-server.ts';

const WORDS = Array.from({ length: 14 }, (_, i) => (i % 2 ? 'مرحبا 👋' : `word${i}`));
const ANSWER = WORDS.join(' ');
/** What the fake model writes one by one (it paces by word). */
const PIECES = ANSWER.split(' ').length;
const WORD_MS = 40;

let llm: FakeLlm;
beforeAll(async () => {
  llm = await startFakeLlm();
});
afterAll(async () => {
  await llm.close();
});

/** Streams ANSWER through the real client and fetch, with words read at most every `readEveryMs`. */
async function stream(readEveryMs?: number) {
  llm.script({ text: ANSWER, pacing: { words: true, delayMs: WORD_MS } });
  const batches: string[] = [];
  let inRun = false;
  const words: AnswerWords = {
    ...(readEveryMs !== undefined && { readEveryMs }),
    begin: () => undefined,
    write: (_call, text) => {
      if (inRun) batches[batches.length - 1] += text;
      else batches.push(text);
      inRun = true;
      queueMicrotask(() => (inRun = false));
    },
    failed: () => undefined,
    ended: () => undefined,
  };
  const model = createChatModel(
    { provider: 'openai', name: 'm', base_url: llm.baseURL, api_key: '' },
    {
      timeoutMs: 10_000,
    },
  );
  const whole = await withAnswerWords(words, () => model.invoke('tell me'));
  const attempt = llm.attempts.at(-1)!;
  return { batches, whole: whole.content, streamMs: attempt.endedAt! - attempt.at };
}

describe('a streamed answer read in batches', () => {
  it('with no edit interval, each event is read as it comes (the control)', async () => {
    const { batches, whole } = await stream();
    expect(whole).toBe(ANSWER);
    expect(batches.join('')).toBe(ANSWER);
    // 21 words 40 ms apart: only a stall of the test process reads two in one go.
    expect(batches.length).toBeGreaterThanOrEqual(PIECES / 2);
  });

  it('with one, the words that came meanwhile are read together; the first words at once', async () => {
    const readEveryMs = 250;
    const { batches, whole, streamMs } = await stream(readEveryMs);
    expect(whole).toBe(ANSWER);
    expect(batches.join('')).toBe(ANSWER);
    // At most one read an interval after the first words, once the answer has come for longer than half an
    // interval (before, the interval is twice its age: 40, 80, 160 ms); a slow machine reads fewer, never more.
    expect(batches.length).toBeLessThanOrEqual(Math.ceil(streamMs / readEveryMs) + 3);
    expect(batches.length).toBeLessThan(PIECES / 2);
    // The first words were not held back behind the role event that came before them, nor for the next ones.
    expect(batches[0]!.split(' ').length).toBeLessThanOrEqual(2);
  });
});
