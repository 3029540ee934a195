// A live reply wakes the process only to show something: each wake-up costs a turn CPU (docs/performance.md,
// Live answers). After a draft shows every word written so far, no show waits until more words come; a draft
// already due runs at once (after.ts: at the end of this turn of the event loop, where a 0 ms timer sleeps
// 1 ms, a wake-up of its own); and a draft falling due has the call's reader read first, so the read and the
// show share one wake-up. The live reply is given a scheduler that records each show it asks for, run here
// by hand: what is scheduled is counted exactly.
import { beforeEach, expect, it } from 'vitest';
import { LiveReply } from '../../src/core/streaming/index.ts';
import type { ChatRef, PartialAnswer } from '../../src/core/surface/index.ts';

const chat: ChatRef = 'telegram:1';
let shown: string[];
/** The shows the live reply asked for, in order: in how long, and what runs then. */
let asked: Array<{ ms: number; run: () => void; cancelled: boolean }>;

beforeEach(() => {
  shown = [];
  asked = [];
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
    after: (ms, run) => {
      const show = { ms, run, cancelled: false };
      asked.push(show);
      return { cancel: () => void (show.cancelled = true) };
    },
  });
}

/** Runs the show asked for first, as its time had come, and lets the edit it starts end. */
async function runNext(): Promise<void> {
  const show = asked.shift()!;
  if (!show.cancelled) show.run();
  for (let i = 0; i < 5; i++) await new Promise((resolve) => setImmediate(resolve));
}

it('once a draft shows every word written, no show waits until more words come', async () => {
  const reply = liveReply();
  reply.begin('call');
  reply.write('call', 'hello');
  // Due at once (startAfterMs 0): asked for now, not in a millisecond.
  expect(asked.map((show) => show.ms <= 0)).toEqual([true]);
  await runNext();
  expect(shown).toEqual(['hello']);
  // Everything written is shown: nothing left to run for nothing.
  expect(asked).toEqual([]);

  reply.write('call', ' world');
  reply.write('call', '!');
  // One show for both, an edit interval after the last.
  expect(asked).toHaveLength(1);
  expect(asked[0]!.ms).toBeGreaterThan(900);
  await runNext();
  expect(shown).toEqual(['hello', 'hello world!']);
  expect(asked).toEqual([]);
  await reply.close();
});

it('words that come while an edit is under way are shown an interval after it', async () => {
  const reply = liveReply();
  reply.begin('call');
  reply.write('call', 'one');
  asked.shift()!.run(); // the edit starts; its answer has not come yet
  reply.write('call', ' two');
  expect(asked).toEqual([]);
  for (let i = 0; i < 5; i++) await new Promise((resolve) => setImmediate(resolve));
  expect(asked).toHaveLength(1);
  expect(asked[0]!.ms).toBeGreaterThan(900);
  await runNext();
  expect(shown).toEqual(['one', 'one two']);
  expect(asked).toEqual([]);
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
  await runNext();
  // The read came first; the show it is part of runs at once after it, and no other was asked for.
  expect(reads).toBe(1);
  expect(shown).toEqual([]);
  expect(asked.map((show) => show.ms)).toEqual([0]);
  await runNext();
  expect(shown).toEqual(['first read 1']);
  reply.write('call', ' more');
  await runNext();
  await runNext();
  expect(shown).toEqual(['first read 1', 'first read 1 more read 2']);
  expect(asked).toEqual([]);
  // Once the call ended its words are all told: nothing more to read.
  reply.ended('call');
  reply.write('call', ' late');
  await runNext();
  expect(reads).toBe(2);
  expect(shown.at(-1)).toBe('first read 1 more read 2 late');
  await reply.close();
});
