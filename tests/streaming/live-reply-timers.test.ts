// A live reply wakes the process only to show something: each wake-up costs a turn CPU (docs/performance.md,
// Live answers). After a draft shows every word written so far, no edit waits on a timer until more words
// come; a draft already due is shown at the end of this turn of the event loop (a 0 ms timer sleeps 1 ms:
// a wake-up of its own); and a draft falling due has the call's reader read first, so the read and the show
// share one wake-up. Timers are vitest's, so what is scheduled is counted exactly.
import { afterEach, beforeEach, expect, it, vi } from 'vitest';
import { LiveReply } from '../../src/core/streaming/index.ts';
import type { ChatRef, PartialAnswer } from '../../src/core/surface/index.ts';

const chat: ChatRef = 'telegram:1';
let shown: string[];

beforeEach(() => {
  vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'setImmediate', 'clearImmediate', 'performance'] });
  shown = [];
});
afterEach(() => {
  vi.useRealTimers();
});

function liveReply(): LiveReply {
  return new LiveReply({
    chat,
    surfaces: {
      previews: () => true,
      showDraft: async (_chat: ChatRef, partial: PartialAnswer) => {
        shown.push(partial.text);
        return [{ chat, id: 'draft', preview: true }];
      },
    },
    startAfterMs: 0,
    editIntervalMs: 1_000,
  });
}

it('once a draft shows every word written, nothing waits to show until more words come', async () => {
  const reply = liveReply();
  reply.begin('call');
  reply.write('call', 'hello');
  // Due at once: shown at the end of this turn, not on a timer.
  expect(vi.getTimerCount()).toBe(1);
  await vi.advanceTimersByTimeAsync(0);
  expect(shown).toEqual(['hello']);
  // Everything written is shown: no timer left to fire for nothing.
  expect(vi.getTimerCount()).toBe(0);

  reply.write('call', ' world');
  expect(vi.getTimerCount()).toBe(1);
  await vi.advanceTimersByTimeAsync(999);
  expect(shown).toEqual(['hello']);
  await vi.advanceTimersByTimeAsync(1);
  expect(shown).toEqual(['hello', 'hello world']);
  expect(vi.getTimerCount()).toBe(0);
  await reply.close();
});

it('words that come while an edit is under way are shown an interval after it', async () => {
  const reply = liveReply();
  reply.begin('call');
  reply.write('call', 'one');
  await vi.advanceTimersToNextTimerAsync();
  reply.write('call', ' two');
  reply.write('call', ' three');
  await vi.advanceTimersByTimeAsync(1_000);
  expect(shown).toEqual(['one', 'one two three']);
  expect(vi.getTimerCount()).toBe(0);
  await reply.close();
});

it("a draft falling due has the call's words read first, and shows them in the same turn", async () => {
  const reply = liveReply();
  reply.begin('call');
  let reads = 0;
  // The reader (streamed-answer.ts) tells what waited within the turn it is asked in.
  reply.reader('call', () => {
    reads++;
    reply.write('call', ` read ${reads}`);
  });
  reply.write('call', 'first');
  // The show due at once reads, then shows at the end of the turn (two immediates, no timer).
  await vi.advanceTimersToNextTimerAsync();
  expect(shown).toEqual([]);
  await vi.advanceTimersToNextTimerAsync();
  expect(shown).toEqual(['first read 1']);
  reply.write('call', ' more');
  await vi.advanceTimersByTimeAsync(1_000);
  await vi.advanceTimersToNextTimerAsync();
  expect(shown).toEqual(['first read 1', 'first read 1 more read 2']);
  expect(vi.getTimerCount()).toBe(0);
  // Once the call ended its words are all told: nothing more to read.
  reply.ended('call');
  reply.write('call', ' late');
  await vi.advanceTimersByTimeAsync(1_000);
  expect(reads).toBe(2);
  expect(shown.at(-1)).toBe('first read 1 more read 2 late');
  await reply.close();
});
