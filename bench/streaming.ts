// Live answers (streaming), on Telegram: the built Kazma (dist/, what `npm start` runs), with the real
// adapter against the fake Bot API, and a fake model that writes an answer word by word (`--words` words,
// `--word-ms` apart); the fakes run in this process. Two figures:
// 1. Time to first visible text minus the model's time to first token: from the fake model writing the
//    first words to the fake Bot API taking what shows them (a draft preview in this private chat;
//    streaming.start_after 0), p50 and p95 over `--turns` turns. Target: p95 ≤ 300 ms.
// 2. The CPU Kazma spends on a streamed turn over a turn of the same answer sent whole (streaming.enabled
//    false, the model taking as long to answer). Two Kazma processes, one streaming and one not, each with
//    its own fake Bot API, take turns: a streamed turn, then the same answer sent whole, held by the model
//    exactly as long as that stream stayed open (arrival to last byte) — Kazma's process costs CPU for every
//    second a turn waits (timers, lease renewals, the platform's long poll), streamed or not. Interleaved,
//    a drift of the machine's load touches both alike (run one after the other, two runs of the same code
//    differed by 25 %). Each turn's CPU is read exactly, the on-CPU nanoseconds of every thread of that
//    process (/proc/<pid>/task/*/schedstat), from the message sent to the answer shown plus a settle time;
//    the first `--warmup` turns of each are left out (the JIT still compiling). Target ≤ 1.3×. The fakes'
//    work (a chunk per word, every draft and edit answered) is theirs, not Kazma's. Beside it, the main
//    thread's share (where the streaming code runs; V8's helper threads collect garbage and compile in lumps
//    that land in whichever turn is running) and how many times the threads were put on a CPU per turn:
//    the wake-ups, steadier than CPU on a noisy host.
//
//   node --import tsx bench/streaming.ts [--turns 20] [--warmup 3] [--words 60] [--word-ms 30]
//
// tests/bench/ runs it with small sizes to see that it still does; the figures are not checked.
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { MAYA } from '../tests/adapters/telegram/harness.ts';
import { startFakeLlm, type FakeLlm } from '../tests/fakes/llm-server.ts';
import { startFakeTelegram, type FakeTelegram } from '../tests/fakes/telegram/index.ts';
import { seedPgliteDataDir } from '../tests/helpers/databases.ts';
import { eventually } from '../tests/helpers/eventually.ts';
import { KazmaProcess, writeConfig } from '../tests/helpers/kazma-process.ts';
import { REPO_ROOT } from '../tests/helpers/repo-root.ts';
import { threadsOnCpu } from './lib/threads-on-cpu.ts';

const { values } = parseArgs({
  options: {
    turns: { type: 'string', default: '20' },
    warmup: { type: 'string', default: '3' },
    words: { type: 'string', default: '60' },
    'word-ms': { type: 'string', default: '30' },
    'edit-interval': { type: 'string', default: '1s' },
    'settle-ms': { type: 'string', default: '300' },
  },
});
const turns = Number(values.turns);
// `--words` words, every other one Arabic (a character of several bytes, which a read may split).
const answer = Array.from({ length: Number(values.words) }, (_, i) => (i % 2 ? 'مرحبا' : `word${i}`)).join(' ');
const pacing = { words: true, delayMs: Number(values['word-ms']) };

type Fakes = { llm: FakeLlm; telegram: FakeTelegram };

/** A Kazma process on its own fake Bot API, answering as it streams or not. */
async function startKazma(llm: FakeLlm, streaming: boolean) {
  const telegram = await startFakeTelegram();
  const { dir, path } = writeConfig(`
http: { port: 0 }
model: { name: fake-model, base_url: "${llm.baseURL}" }
access: { operators: [{ name: Maya, telegram: "${MAYA.id}" }] }
telegram: { enabled: true, token: "${telegram.token}", api_root: "${telegram.apiRoot}" }
streaming: { enabled: ${streaming}, start_after: 0ms, telegram: { edit_interval: ${values['edit-interval']} } }
`);
  await seedPgliteDataDir(join(dir, 'kazma-data'));
  const kazma = new KazmaProcess(['start', '--config', path], {
    env: { DATABASE_URL: undefined, REDIS_URL: undefined },
  });
  await kazma.waitForLog((line) => line.msg === 'telegram started');
  return { kazma, telegram, pid: kazma.child.pid! };
}

/**
 * One turn: the answer asked for in Kazma `pid`'s chat, sent whole after `wholeAfterMs` (undefined: it
 * streams). Its CPU, how long the model's answer took from the request's arrival to its last byte, and
 * (streamed) the lag from the first words written to the first text shown.
 */
async function turn(fakes: Fakes, pid: number, i: number, wholeAfterMs?: number) {
  const { llm, telegram } = fakes;
  const before = new Set(telegram.calls.all);
  llm.script({ text: answer, pacing });
  // Sent whole, the model takes as long as the stream took: the same turn, minus streaming.
  if (wholeAfterMs !== undefined) llm.hangNext(1, wholeAfterMs);
  const cpu = threadsOnCpu(pid);
  telegram.sendUserMessage({ chatId: MAYA.id, from: MAYA, text: `question ${i}` });
  await eventually(
    () => telegram.calls.all.filter((call) => !before.has(call)),
    (calls) => calls.some((call) => call.ok && call.body.text === answer && call.method !== 'sendMessageDraft'),
    'the answer shown',
    60_000,
  );
  // The outbox records the delivery after the platform took it: part of the turn's work.
  await new Promise((resolve) => setTimeout(resolve, Number(values['settle-ms'])));
  const after = threadsOnCpu(pid);
  const cpuMs = after.cpuMs - cpu.cpuMs;
  const runs = after.runs - cpu.runs;
  const mainMs = after.mainMs - cpu.mainMs;
  const attempt = llm.attempts.at(-1)!;
  // Sent whole, the model is asked without a stream: no first token to measure from.
  const firstWords = attempt.chunksAt?.[1];
  // What shows text first: a draft preview (a private chat) or a message.
  const shown = Math.min(
    ...[...telegram.calls.of('sendMessageDraft'), ...telegram.calls.of('sendMessage')]
      .filter((call) => call.ok && !before.has(call))
      .map((call) => call.at),
  );
  return {
    cpuMs,
    mainMs,
    runs,
    answerMs: attempt.endedAt! - attempt.at,
    lag: firstWords === undefined ? undefined : shown - firstWords,
  };
}

const percentile = (values: number[], p: number) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
};
const mean = (values: number[]) => values.reduce((sum, v) => sum + v, 0) / values.length;

// What users run: dist/ brought up to date once, as `npm start` does.
execFileSync(process.execPath, [join(REPO_ROOT, 'bin/build.js'), '--if-stale'], { stdio: 'inherit' });
const llm = await startFakeLlm();
const live = await startKazma(llm, true);
const whole = await startKazma(llm, false);
try {
  const figures = {
    lags: [] as number[],
    live: [] as number[],
    whole: [] as number[],
    liveMs: [] as number[],
    wholeMs: [] as number[],
    liveRuns: [] as number[],
    wholeRuns: [] as number[],
    liveMain: [] as number[],
    wholeMain: [] as number[],
  };
  const warmup = Number(values.warmup);
  for (let i = 0; i < warmup + turns; i++) {
    const streamed = await turn({ llm, telegram: live.telegram }, live.pid, i);
    const sent = await turn({ llm, telegram: whole.telegram }, whole.pid, i, streamed.answerMs);
    if (i < warmup) continue;
    if (streamed.lag !== undefined) figures.lags.push(streamed.lag);
    figures.live.push(streamed.cpuMs);
    figures.whole.push(sent.cpuMs);
    figures.liveMs.push(streamed.answerMs);
    figures.wholeMs.push(sent.answerMs);
    figures.liveRuns.push(streamed.runs);
    figures.wholeRuns.push(sent.runs);
    figures.liveMain.push(streamed.mainMs);
    figures.wholeMain.push(sent.mainMs);
  }
  console.log(
    `answer: ${values.words} words, ${values['word-ms']} ms apart; ${turns} turns each (after ${warmup} left out); ` +
      `the model's answer took ${mean(figures.liveMs).toFixed(0)} ms streamed, ${mean(figures.wholeMs).toFixed(0)} ms whole`,
  );
  console.log(
    figures.lags.length === 0
      ? 'first visible text - first token: no draft was shown (the answer came whole before one was due)'
      : `first visible text - first token: p50 ${percentile(figures.lags, 50).toFixed(0)} ms, ` +
          `p95 ${percentile(figures.lags, 95).toFixed(0)} ms (target p95 <= 300 ms)`,
  );
  console.log(
    `CPU per turn: streamed ${mean(figures.live).toFixed(1)} ms, whole ${mean(figures.whole).toFixed(1)} ms, ` +
      `ratio ${(mean(figures.live) / mean(figures.whole)).toFixed(2)} (target <= 1.3); ` +
      `medians ${percentile(figures.live, 50).toFixed(1)} and ${percentile(figures.whole, 50).toFixed(1)} ms, ` +
      `ratio ${(percentile(figures.live, 50) / percentile(figures.whole, 50)).toFixed(2)}`,
  );
  console.log(
    `of which the main thread (where streaming's own work runs; V8's helper threads have the rest), medians: ` +
      `streamed ${percentile(figures.liveMain, 50).toFixed(1)} ms, whole ${percentile(figures.wholeMain, 50).toFixed(1)} ms, ` +
      `ratio ${(percentile(figures.liveMain, 50) / percentile(figures.wholeMain, 50)).toFixed(2)}`,
  );
  console.log(
    `times on a CPU per turn (wake-ups, every thread), medians: streamed ${percentile(figures.liveRuns, 50)}, ` +
      `whole ${percentile(figures.wholeRuns, 50)}`,
  );
} finally {
  for (const { kazma, telegram } of [live, whole]) {
    kazma.kill('SIGKILL');
    await kazma.exited;
    await telegram.close();
  }
  await llm.close();
}
process.exit(0);
