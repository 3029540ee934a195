// Live answers (streaming), on Telegram: Kazma with the real adapter against the fake Bot API, and a fake
// model that writes an answer word by word (`--words` words, `--word-ms` apart). Two figures:
// 1. Time to first visible text minus the model's time to first token: from the fake model writing the
//    first words to the fake Bot API taking what shows them (a draft preview in this private chat;
//    streaming.start_after 0), p50 and p95 over `--turns` turns. Target: p95 ≤ 300 ms.
// 2. The CPU of a streamed turn over a turn of the same answer sent whole (streaming.enabled false, the
//    model taking as long to answer), in this process (Kazma, the fakes and all): the ratio of the means.
//    Target ≤ 1.3×.
//
//   node --import tsx bench/streaming.ts [--turns 20] [--words 60] [--word-ms 30]
//
// tests/bench/ runs it with small sizes to see that it still does; the figures are not checked.
import { parseArgs } from 'node:util';
import { startHarness, MAYA } from '../tests/adapters/telegram/harness.ts';
import { startFakeLlm, type FakeLlm } from '../tests/fakes/llm-server.ts';

const { values } = parseArgs({
  options: {
    turns: { type: 'string', default: '20' },
    words: { type: 'string', default: '60' },
    'word-ms': { type: 'string', default: '30' },
    'edit-interval': { type: 'string', default: '1s' },
  },
});
const turns = Number(values.turns);
const answer = Array.from({ length: Number(values.words) }, (_, i) => `word${i} مرحبا`).join(' ');
const pacing = { words: true, delayMs: Number(values['word-ms']) };

/** Runs `turns` turns in one chat; per turn, the lag from first token to first visible text, and its CPU. */
async function run(llm: FakeLlm, streaming: boolean): Promise<{ lags: number[]; cpuMs: number[] }> {
  const h = await startHarness({
    modelBaseUrl: llm.baseURL,
    config: {
      streaming: { enabled: streaming, start_after: '0ms', telegram: { edit_interval: values['edit-interval'] } },
    },
  });
  const lags: number[] = [];
  const cpuMs: number[] = [];
  try {
    for (let i = 0; i < turns; i++) {
      // What shows text first: a draft preview (a private chat) or a message.
      const shows = () => [...h.fake.calls.of('sendMessageDraft'), ...h.fake.calls.of('sendMessage')];
      const showsBefore = new Set(shows());
      llm.script({ text: answer, pacing });
      // Sent whole, the model takes as long as it takes to write the stream: the same turn, minus streaming.
      if (!streaming) llm.hangNext(1, Number(values.words) * pacing.delayMs);
      const cpu = process.cpuUsage();
      h.say({ chatId: MAYA.id, from: MAYA, text: `question ${i}` });
      await h.settled();
      const used = process.cpuUsage(cpu);
      cpuMs.push((used.user + used.system) / 1000);
      // Sent whole, the model is asked without a stream: no first token to measure from.
      const firstWords = llm.attempts.at(-1)!.chunksAt?.[1];
      const shown = Math.min(
        ...shows()
          .filter((call) => call.ok && !showsBefore.has(call))
          .map((call) => call.at),
      );
      if (firstWords !== undefined) lags.push(shown - firstWords);
    }
  } finally {
    await h.close();
  }
  return { lags, cpuMs };
}

const percentile = (values: number[], p: number) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
};
const mean = (values: number[]) => values.reduce((sum, v) => sum + v, 0) / values.length;

const llm = await startFakeLlm();
try {
  const whole = await run(llm, false);
  const live = await run(llm, true);
  console.log(`answer: ${values.words} words, ${values['word-ms']} ms apart; ${turns} turns each`);
  console.log(
    `first visible text - first token: p50 ${percentile(live.lags, 50).toFixed(0)} ms, ` +
      `p95 ${percentile(live.lags, 95).toFixed(0)} ms (target p95 <= 300 ms)`,
  );
  console.log(
    `CPU per turn: streamed ${mean(live.cpuMs).toFixed(1)} ms, whole ${mean(whole.cpuMs).toFixed(1)} ms, ` +
      `ratio ${(mean(live.cpuMs) / mean(whole.cpuMs)).toFixed(2)} (target <= 1.3)`,
  );
} finally {
  await llm.close();
}
process.exit(0);
