// Live answers (streaming), on Telegram: the built Kazma (dist/, what `npm start` runs) in its own process,
// with the real adapter against the fake Bot API, and a fake model that writes an answer word by word
// (`--words` words, `--word-ms` apart); both fakes run in this process. Two figures:
// 1. Time to first visible text minus the model's time to first token: from the fake model writing the
//    first words to the fake Bot API taking what shows them (a draft preview in this private chat;
//    streaming.start_after 0), p50 and p95 over `--turns` turns. Target: p95 ≤ 300 ms.
// 2. The CPU Kazma's process spends on a streamed turn over a turn of the same answer sent whole
//    (streaming.enabled false, the model taking as long to answer): user + system time of that process
//    (/proc/<pid>/stat), from the message sent to the answer shown plus a settle time, ratio of the means.
//    Target ≤ 1.3×. The fakes' work (a chunk per word, every draft and edit answered) is theirs, not
//    Kazma's: they run here, outside what is measured. "As long" is measured, not computed: the streamed
//    turns run first, and each whole answer is held for as long as the streamed ones stayed open on
//    average (arrival to last byte). Computed as words × word-ms it fell short of the stream's real
//    length (the role, finish, usage and [DONE] events, each a pause too, and the timers' lateness), and
//    Kazma's process costs CPU for every second a turn waits, streamed or not (timers, lease renewals,
//    the platform's long poll): a shorter wait made the whole turn look cheaper than it is.
//
//   node --import tsx bench/streaming.ts [--turns 20] [--words 60] [--word-ms 30]
//
// tests/bench/ runs it with small sizes to see that it still does; the figures are not checked.
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { MAYA } from '../tests/adapters/telegram/harness.ts';
import { startFakeLlm, type FakeLlm } from '../tests/fakes/llm-server.ts';
import { startFakeTelegram, type FakeTelegram } from '../tests/fakes/telegram/index.ts';
import { seedPgliteDataDir } from '../tests/helpers/databases.ts';
import { eventually } from '../tests/helpers/eventually.ts';
import { KazmaProcess, writeConfig } from '../tests/helpers/kazma-process.ts';
import { REPO_ROOT } from '../tests/helpers/repo-root.ts';

const { values } = parseArgs({
  options: {
    turns: { type: 'string', default: '20' },
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
const CLOCK_TICK_MS = 1000 / Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim());

/** User + system CPU of process `pid` so far, in ms (fields 14 and 15 of /proc/<pid>/stat, in clock ticks). */
function cpuOf(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) * CLOCK_TICK_MS;
}

/**
 * Runs `turns` turns in one chat; per turn, the lag from first token to first visible text, Kazma's CPU,
 * and how long the model's answer took from the request's arrival to its last byte. `wholeAfterMs`: sent
 * whole, the model answers this long after the request arrived; undefined, it streams.
 */
async function run(fakes: { llm: FakeLlm; telegram: FakeTelegram }, wholeAfterMs?: number) {
  const streaming = wholeAfterMs === undefined;
  const { llm, telegram } = fakes;
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
  const lags: number[] = [];
  const cpuMs: number[] = [];
  const answerMs: number[] = [];
  try {
    await kazma.waitForLog((line) => line.msg === 'telegram started');
    const pid = kazma.child.pid!;
    for (let i = 0; i < turns; i++) {
      // What shows text first: a draft preview (a private chat) or a message.
      const shows = () => [...telegram.calls.of('sendMessageDraft'), ...telegram.calls.of('sendMessage')];
      const before = new Set(telegram.calls.all);
      llm.script({ text: answer, pacing });
      // Sent whole, the model takes as long as the streams took: the same turn, minus streaming.
      if (!streaming) llm.hangNext(1, wholeAfterMs);
      const cpu = cpuOf(pid);
      telegram.sendUserMessage({ chatId: MAYA.id, from: MAYA, text: `question ${i}` });
      await eventually(
        () => telegram.calls.all.filter((call) => !before.has(call)),
        (calls) => calls.some((call) => call.ok && call.body.text === answer && call.method !== 'sendMessageDraft'),
        'the answer shown',
        60_000,
      );
      // The outbox records the delivery after the platform took it: part of the turn's work.
      await new Promise((resolve) => setTimeout(resolve, Number(values['settle-ms'])));
      cpuMs.push(cpuOf(pid) - cpu);
      const attempt = llm.attempts.at(-1)!;
      answerMs.push(attempt.endedAt! - attempt.at);
      // Sent whole, the model is asked without a stream: no first token to measure from.
      const firstWords = attempt.chunksAt?.[1];
      const shown = Math.min(
        ...shows()
          .filter((call) => call.ok && !before.has(call))
          .map((call) => call.at),
      );
      if (firstWords !== undefined) lags.push(shown - firstWords);
    }
  } finally {
    kazma.kill('SIGKILL');
    await kazma.exited;
  }
  return { lags, cpuMs, answerMs };
}

const percentile = (values: number[], p: number) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
};
const mean = (values: number[]) => values.reduce((sum, v) => sum + v, 0) / values.length;

// What users run: dist/ brought up to date once, as `npm start` does.
execFileSync(process.execPath, [join(REPO_ROOT, 'bin/build.js'), '--if-stale'], { stdio: 'inherit' });
const fakes = { llm: await startFakeLlm(), telegram: await startFakeTelegram() };
try {
  const live = await run(fakes);
  const whole = await run(fakes, mean(live.answerMs));
  console.log(
    `answer: ${values.words} words, ${values['word-ms']} ms apart; ${turns} turns each; ` +
      `the model's answer took ${mean(live.answerMs).toFixed(0)} ms streamed, ${mean(whole.answerMs).toFixed(0)} ms whole`,
  );
  console.log(
    `first visible text - first token: p50 ${percentile(live.lags, 50).toFixed(0)} ms, ` +
      `p95 ${percentile(live.lags, 95).toFixed(0)} ms (target p95 <= 300 ms)`,
  );
  console.log(
    `CPU per turn: streamed ${mean(live.cpuMs).toFixed(1)} ms, whole ${mean(whole.cpuMs).toFixed(1)} ms, ` +
      `ratio ${(mean(live.cpuMs) / mean(whole.cpuMs)).toFixed(2)} (target <= 1.3)`,
  );
} finally {
  await fakes.llm.close();
  await fakes.telegram.close();
}
process.exit(0);
