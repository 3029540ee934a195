// A streamed answer is read in batches (read-in-batches.ts): each read after a pause wakes the process, so
// the events that come within an edit interval are read together — and the first words at once, since the
// answer's first sight is what a person waits for. A batch is what one read hands over: the words of one read
// are told within one turn of the event loop (what its stream held, then what waited in the kernel), so a word
// told after a setImmediate begins a new batch (counted exactly, no clock).
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
  /** `Date.now()` as each batch began. */
  const readAt: number[] = [];
  let inRun = false;
  const words: AnswerWords = {
    ...(readEveryMs !== undefined && { readEveryMs }),
    begin: () => undefined,
    write: (_call, text) => {
      if (inRun) batches[batches.length - 1] += text;
      else {
        readAt.push(Date.now());
        batches.push(text);
      }
      inRun = true;
      setImmediate(() => {
        inRun = false;
      });
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
  return {
    batches,
    readAt,
    chunksAt: attempt.chunksAt!,
    whole: whole.content,
    streamMs: attempt.endedAt! - attempt.at,
  };
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

  it('a read takes every word the model had written before it, not only those its stream held', async () => {
    const { batches, readAt, chunksAt } = await stream(250);
    // chunksAt: the role event, then one event a piece. A piece written well before a read (a loopback
    // socket's delay is far under the 40 ms between pieces) is told by that read or an earlier one.
    const pieces = ANSWER.split(/(?<= )/);
    for (const [b, at] of readAt.entries()) {
      const written = pieces.filter((_, i) => chunksAt[i + 1]! < at - WORD_MS / 2).join('');
      expect(batches.slice(0, b + 1).join('')).toContain(written);
    }
  });
});
