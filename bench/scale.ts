// Horizontal scale of chat turns: messages/s through one `kazma start` process, then through two sharing
// one PostgreSQL database and one Redis, in Telegram webhook mode against the local fake Bot API and one
// zero-latency fake model (both in this process). Closed-loop users (each sends in its next chat, waits
// for the reply, sends again) over many chats. Two processes are measured twice: `alternate` posts each
// message to the other process than the one before, so every chat's consecutive messages arrive at
// different processes (each is handed over through the chat's lease); `sticky` posts a chat's messages
// always to the same process (a load balancer with chat affinity). Prints msgs/s, p50/p99 latency
// (posted → reply received by the fake), and the two-to-one ratios. Every reply is checked: a lost,
// doubled or out-of-order answer fails the run.
//
//   node --import tsx bench/scale.ts [--messages 1000] [--concurrency 16] [--chats 64] [--warmup 64]
//
// tests/bench/ runs it with few messages to see that it still does; the figures are not checked. Needs PostgreSQL and Redis as the tests do (KAZMA_TEST_PG_URL, 127.0.0.1:6379).
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { startFakeLlm, type FakeLlm } from '../tests/fakes/llm-server.ts';
import { startFakeTelegram, type FakeTelegram } from '../tests/fakes/telegram/index.ts';
import { createPgDatabase } from '../tests/helpers/databases.ts';
import { KazmaProcess } from '../tests/helpers/kazma-process.ts';

const { values } = parseArgs({
  options: {
    messages: { type: 'string', default: '1000' },
    concurrency: { type: 'string', default: '16' },
    chats: { type: 'string', default: '64' },
    warmup: { type: 'string', default: '64' },
  },
});
const opts = {
  messages: Number(values.messages),
  concurrency: Number(values.concurrency),
  chats: Number(values.chats),
  warmup: Number(values.warmup),
};
for (const [key, value] of Object.entries(opts))
  if (!Number.isInteger(value) || value < (key === 'warmup' ? 0 : 1))
    throw new Error(`--${key} must be a positive integer`);
if (opts.chats < opts.concurrency)
  throw new Error('--chats must be at least --concurrency: each user talks in chats of its own');

const SECRET = 'bench-scale-secret';
const FIRST_CHAT = 300_000;
const STALL_MS = 120_000; // a reply that never comes is a lost message

type Routing = 'alternate' | 'sticky';
interface Result {
  name: string;
  perSecond: number;
  p50: number;
  p99: number;
  seconds: number;
}

/** Replies per chat, followed through the fake's call log by index (scanning it per message would dominate). */
function followReplies(telegram: FakeTelegram): { next: (chat: number) => Promise<string>; stop: () => void } {
  const waiting = new Map<number, (text: string) => void>();
  const early = new Map<number, string[]>();
  let cursor = telegram.calls.all.length;
  const pump = setInterval(() => {
    for (; cursor < telegram.calls.all.length; cursor++) {
      const call = telegram.calls.all[cursor]!;
      if (call.method !== 'sendMessage' || !call.ok) continue;
      const chat = Number(call.body.chat_id);
      const text = String(call.body.text);
      const resolve = waiting.get(chat);
      if (resolve) {
        waiting.delete(chat);
        resolve(text);
      } else early.set(chat, [...(early.get(chat) ?? []), text]); // a second reply: reported as wrong by the caller
    }
  }, 1);
  return {
    next: (chat) => {
      const queued = early.get(chat)?.shift();
      if (queued !== undefined) return Promise.resolve(queued);
      return new Promise((resolve, reject) => {
        waiting.set(chat, resolve);
        setTimeout(() => reject(new Error(`no reply in chat ${chat} within ${STALL_MS / 1000} s`)), STALL_MS).unref();
      });
    },
    stop: () => clearInterval(pump),
  };
}

async function drive(
  telegram: FakeTelegram,
  ports: number[],
  routing: Routing,
  total: number,
  phase: string,
): Promise<{ latencies: number[]; seconds: number }> {
  const replies = followReplies(telegram);
  const latencies: number[] = [];
  let next = 0;
  let posted = 0;
  const started = performance.now();
  const user = async (u: number) => {
    const owned = Array.from(
      { length: Math.ceil((opts.chats - u) / opts.concurrency) },
      (_, j) => FIRST_CHAT + u + j * opts.concurrency,
    );
    for (let k = next++, turn = 0; k < total; k = next++, turn++) {
      const chat = owned[turn % owned.length]!;
      const text = `${phase}-${k}`;
      const update = telegram.sendUserMessage({ chatId: chat, from: { id: chat, first_name: `U${chat}` }, text });
      const sent = performance.now();
      const port = routing === 'sticky' ? ports[chat % ports.length] : ports[posted++ % ports.length];
      const res = await fetch(`http://127.0.0.1:${port}/telegram/webhook`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-telegram-bot-api-secret-token': SECRET },
        body: JSON.stringify(update),
      });
      if (res.status !== 200) throw new Error(`the webhook answered ${res.status} to ${text}`);
      const reply = await replies.next(chat);
      latencies.push(performance.now() - sent);
      if (reply !== `echo: ${text}`)
        throw new Error(
          `chat ${chat}: expected "echo: ${text}", got "${reply.slice(0, 200)}" (lost, doubled or out of order)`,
        );
    }
  };
  try {
    await Promise.all(Array.from({ length: opts.concurrency }, (_, u) => user(u)));
  } finally {
    replies.stop();
  }
  return { latencies, seconds: (performance.now() - started) / 1000 };
}

async function run(
  processes: number,
  routing: Routing,
  telegram: FakeTelegram,
  llm: FakeLlm,
  dir: string,
): Promise<Result> {
  const pg = await createPgDatabase();
  const users = Array.from({ length: opts.chats }, (_, i) => `telegram:${FIRST_CHAT + i}`);
  const started: KazmaProcess[] = [];
  try {
    for (let i = 0; i < processes; i++) {
      const config = join(dir, `p${processes}${routing}-${i}.yaml`);
      writeFileSync(
        config,
        JSON.stringify({
          data_dir: join(dir, `p${processes}${routing}-${i}`),
          http: { port: 0 },
          database: { url: pg.url },
          model: { name: 'fake-model', base_url: llm.baseURL, max_retries: 2 },
          access: { users },
          telegram: {
            enabled: true,
            token: telegram.token,
            api_root: telegram.apiRoot,
            mode: 'webhook',
            webhook_secret: SECRET,
            webhook_url: '',
          },
          log: { level: 'info' },
        }),
      );
      const proc = new KazmaProcess(['start', '--config', config]);
      started.push(proc);
      await proc.waitForLog((l) => l.msg === 'telegram started', 180_000);
    }
    const ports = await Promise.all(started.map((p) => p.port()));
    const phase = `${processes}${routing}`;
    if (opts.warmup > 0) await drive(telegram, ports, routing, opts.warmup, `warm${phase}`);
    const { latencies, seconds } = await drive(telegram, ports, routing, opts.messages, `run${phase}`);
    const sorted = latencies.sort((a, b) => a - b);
    const pct = (p: number) => Math.round(sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))] ?? NaN);
    const name = processes === 1 ? '1 process' : `2 processes, ${routing}`;
    return { name, perSecond: opts.messages / seconds, p50: pct(0.5), p99: pct(0.99), seconds };
  } finally {
    for (const proc of started) proc.kill('SIGTERM');
    await Promise.all(started.map((p) => p.exited));
    await pg.drop();
  }
}

const telegram = await startFakeTelegram();
const llm = await startFakeLlm();
const dir = mkdtempSync(join(tmpdir(), 'kazma-scale-'));
const results: Result[] = [];
try {
  console.log(
    `scale: ${opts.messages} messages, ${opts.concurrency} concurrent users over ${opts.chats} chats, warm-up ${opts.warmup}; PostgreSQL, Telegram webhook mode, one fake model`,
  );
  for (const [processes, routing] of [
    [1, 'alternate'],
    [2, 'alternate'],
    [2, 'sticky'],
  ] as const) {
    results.push(await run(processes, routing, telegram, llm, dir));
    console.log(`  ${results.at(-1)!.name}: done`);
  }
} finally {
  await llm.close();
  await telegram.close();
  rmSync(dir, { recursive: true, force: true });
}
console.log(
  `\n${'run'.padEnd(24)} ${'msgs/s'.padStart(9)} ${'p50 ms'.padStart(8)} ${'p99 ms'.padStart(8)} ${'seconds'.padStart(8)}`,
);
for (const r of results)
  console.log(
    `${r.name.padEnd(24)} ${r.perSecond.toFixed(1).padStart(9)} ${String(r.p50).padStart(8)} ${String(r.p99).padStart(8)} ${r.seconds.toFixed(1).padStart(8)}`,
  );
const [one, ...twos] = results;
for (const two of twos) {
  if (one)
    console.log(
      `${two.name} / 1 process: throughput ${(two.perSecond / one.perSecond).toFixed(2)}×, p50 latency ${(two.p50 / Math.max(1, one.p50)).toFixed(2)}×`,
    );
}
