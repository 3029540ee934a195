// A chat turn's cost, in two parts, each on embedded PGlite and on PostgreSQL:
// 1. CPU-ms and SQL statements per simple turn (fake model, no tools) of Kazma's core path (inbox, chat
//    queue, agent graph, checkpoint, reply) beside the floor — a bare one-node LangGraph graph on the same
//    checkpointer at each durability, and on LangGraph's stock PostgresSaver with its defaults (the floor
//    as the performance issue wrote it) — measured in one child process per database, and the ratio
//    Kazma / floor.
// 2. Throughput on Telegram: (a) a bare grammY echo bot and (b) Kazma's full path (Telegram adapter →
//    agent with a zero-latency fake LLM → checkpoint → reply), each a child process polling the same fake
//    Bot API, driven by closed-loop users (each sends, waits for the reply, sends again). Prints
//    messages/s, p50/p99 latency (update queued → reply accepted by the fake), their ratio, and RSS.
//
//   node --import tsx bench/turn-throughput.ts [--turns 300] [--rounds 6] [--messages 1000] [--concurrency 32] [--chats 256]
//                                             [--only cost|echo|kazma] [--database pglite|postgres] [--profile]
// --profile adds a pass to part 1 under V8's sampling profiler and prints, per category of code, the CPU
// a Kazma turn spends beside the `exit` floor's.
//
// tests/bench/ runs it with small sizes to see that it still does; the figures are not checked. Needs Redis like `kazma start` (127.0.0.1:6379, or redis-server on PATH).
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, openSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { startFakeLlm } from '../tests/fakes/llm-server.ts';
import { createPgDatabase, type Backend } from '../tests/helpers/databases.ts';
import { measureTurnCost, type Spread, type TurnCost } from './lib/turn-cost.ts';
import { costDifference } from './lib/turn-profile.ts';
import { startFakeTelegram, type CallRecord, type FakeTelegram } from '../tests/fakes/telegram/index.ts';

const HERE = fileURLToPath(import.meta.url);
const ROOT = join(HERE, '../..');

// Child mode: the bare echo bot, with auto-retry (429s honoured, transport errors retried).
if (process.argv[2] === '--echo-bot') {
  const [{ Bot }, { autoRetry }] = await Promise.all([import('grammy'), import('@grammyjs/auto-retry')]);
  const bot = new Bot(process.argv[4]!, { client: { apiRoot: process.argv[3]! } });
  bot.api.config.use(autoRetry({ maxRetryAttempts: 3, maxDelaySeconds: 60 }));
  bot.on('message:text', (ctx) => ctx.reply(`echo: ${ctx.message.text}`));
  bot.catch((error) => console.error('echo bot:', error.message));
  process.on('SIGTERM', () => void bot.stop().then(() => process.exit(0)));
  await bot.start({ allowed_updates: ['message', 'callback_query'] });
  process.exit(0);
}

// Child mode: the turn-cost measurement on one database, printed as one JSON line.
if (process.argv[2] === '--turn-cost') {
  const [backend, llmUrl, turns, chats, rounds, profile] = process.argv.slice(3);
  const cost = await measureTurnCost({
    backend: backend as Backend,
    llmUrl: llmUrl!,
    turns: Number(turns),
    chats: Number(chats),
    rounds: Number(rounds),
    profile: profile === 'profile',
  });
  console.log(JSON.stringify(cost));
  process.exit(0);
}

const { values } = parseArgs({
  options: {
    turns: { type: 'string', default: '300' },
    rounds: { type: 'string', default: '6' },
    messages: { type: 'string', default: '1000' },
    concurrency: { type: 'string', default: '32' },
    chats: { type: 'string', default: '256' },
    warmup: { type: 'string', default: '64' },
    only: { type: 'string' },
    database: { type: 'string' },
    profile: { type: 'boolean', default: false },
  },
});
const backends: Backend[] = values.database ? [values.database as Backend] : ['pglite', 'postgres'];
const opts = {
  turns: Number(values.turns),
  rounds: Number(values.rounds),
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

interface Result {
  name: string;
  perSecond: number;
  p50: number;
  p99: number;
  rssStartMb: number;
  rssEndMb: number;
  seconds: number;
}

/**
 * Closed loop: `concurrency` users, each sends in its next chat and waits for the reply before the next
 * message. Chats rotate so each conversation stays realistically short (messages / chats turns each).
 */
async function drive(
  fake: FakeTelegram,
  firstUser: number,
  total: number,
  phase: string,
): Promise<{ latencies: number[]; seconds: number; wrong: string[] }> {
  // One message waits per chat at a time (each chat belongs to one user); any reply in it answers it.
  const replies = new Map<number, (call: CallRecord) => void>();
  // The fake's CallLog keeps every call; follow it by index instead of scanning it per message.
  let cursor = fake.calls.all.length;
  const pump = setInterval(() => {
    for (; cursor < fake.calls.all.length; cursor++) {
      const call = fake.calls.all[cursor]!;
      if (call.method === 'sendMessage' && call.ok) replies.get(Number(call.body.chat_id))?.(call);
    }
  }, 1);
  const latencies: number[] = [];
  const wrong: string[] = [];
  let next = 0;
  const started = performance.now();
  let failed = false;
  const worker = async (w: number) => {
    // Worker w owns chats w, w + concurrency, w + 2·concurrency, … and visits them in turn.
    const owned = Array.from(
      { length: Math.ceil((opts.chats - w) / opts.concurrency) },
      (_, j) => firstUser + w + j * opts.concurrency,
    );
    for (let k = next++, turn = 0; k < total && !failed; k = next++, turn++) {
      const user = owned[turn % owned.length]!;
      const text = `${phase}-${k}`;
      const replied = new Promise<CallRecord>((resolve) => replies.set(user, resolve));
      const sent = Date.now();
      fake.sendUserMessage({ chatId: user, from: { id: user, first_name: `U${user}` }, text });
      const call = await Promise.race([replied, stalled(text, user)]).catch((error: unknown) => {
        failed = true;
        throw error;
      });
      replies.delete(user);
      latencies.push(call.at - sent);
      if (call.body.text !== `echo: ${text}`) wrong.push(`${text} → ${String(call.body.text).slice(0, 300)}`);
      if (latencies.length % Math.max(1, Math.floor(total / 10)) === 0) {
        process.stderr.write(
          `  ${phase}: ${latencies.length}/${total} (${(latencies.length / ((performance.now() - started) / 1000)).toFixed(1)} msgs/s so far)\n`,
        );
      }
    }
  };
  try {
    await Promise.all(Array.from({ length: opts.concurrency }, (_, w) => worker(w)));
  } finally {
    clearInterval(pump);
  }
  return { latencies, seconds: (performance.now() - started) / 1000, wrong };
}

/** A reply that never comes is a lost message: fail loudly instead of waiting forever. */
function stalled(text: string, chat: number): Promise<never> {
  return new Promise((_, reject) => {
    const timer = setTimeout(
      () => reject(new Error(`no reply to "${text}" in chat ${chat} within ${STALL_MS / 1000} s`)),
      STALL_MS,
    );
    timer.unref();
  });
}
const STALL_MS = 300_000; // generous: a loaded machine is slow, a lost message is never answered

function rssMb(child: ChildProcess): number {
  const kb = Number(
    execFileSync('ps', ['-o', 'rss=', '-p', String(child.pid)])
      .toString()
      .trim(),
  );
  return Math.round(kb / 1024);
}

const pct = (sorted: number[], p: number): number =>
  sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))] ?? NaN;

/** Waits for the child to start polling (its deleteWebhook comes just before), warms up, then measures. */
async function measure(
  name: string,
  fake: FakeTelegram,
  child: ChildProcess,
  firstUser: number,
  mark: number,
): Promise<Result> {
  await fake.calls.waitFor('deleteWebhook', (c) => fake.calls.all.indexOf(c) >= mark, 120_000);
  if (opts.warmup > 0) await drive(fake, firstUser, opts.warmup, `${name}-warm`);
  const rssStartMb = rssMb(child);
  const { latencies, seconds, wrong } = await drive(fake, firstUser, opts.messages, name);
  // A figure measured over wrong answers (a refusal, an error) is not Kazma's throughput: fail the run.
  if (wrong.length > 0)
    throw new Error(`${name}: ${wrong.length} replies were not the echo, e.g.\n  ${wrong.slice(0, 3).join('\n  ')}`);
  const rssEndMb = rssMb(child);
  const sorted = [...latencies].sort((a, b) => a - b);
  return {
    name,
    perSecond: opts.messages / seconds,
    p50: pct(sorted, 0.5),
    p99: pct(sorted, 0.99),
    rssStartMb,
    rssEndMb,
    seconds,
  };
}
async function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), 15_000);
  await exited;
  clearTimeout(timer);
}

function exitEarly(child: ChildProcess, name: string): void {
  child.once('exit', (code) => {
    if (code !== 0 && code !== null) console.error(`${name} exited with code ${code}`);
  });
}

/** Part 1 in a child process per database: the fake model's CPU stays in this one. */
async function turnCost(backend: Backend, llmUrl: string): Promise<TurnCost> {
  const child = spawn(
    process.execPath,
    [
      '--import',
      'tsx',
      HERE,
      '--turn-cost',
      backend,
      llmUrl,
      String(opts.turns),
      '32',
      String(opts.rounds),
      values.profile ? 'profile' : 'plain',
    ],
    { cwd: ROOT, stdio: ['ignore', 'pipe', 'inherit'] },
  );
  let out = '';
  child.stdout!.on('data', (chunk: Buffer) => (out += chunk.toString()));
  const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
  if (code !== 0) throw new Error(`the turn-cost child on ${backend} exited with code ${code}`);
  return JSON.parse(out.trim().split('\n').at(-1)!) as TurnCost;
}

const fake = await startFakeTelegram();
const llm = await startFakeLlm();
const costs: TurnCost[] = [];
const results: Result[] = [];
const dir = mkdtempSync(join(tmpdir(), 'kazma-bench-'));
try {
  if (!values.only || values.only === 'cost') {
    console.log(
      `turn cost: ${opts.turns} simple turns of each kind (after 50 warm-up), 32 chats in turn, in ${opts.rounds} rounds side by side, on ${backends.join(' and ')}`,
    );
    for (const backend of backends) costs.push(await turnCost(backend, llm.baseURL));
  }
  if (!values.only || values.only === 'echo') {
    console.log(
      `turn throughput: ${opts.messages} messages, ${opts.concurrency} concurrent users over ${opts.chats} chats, warm-up ${opts.warmup}`,
    );
    const mark = fake.calls.all.length;
    const echo = spawn(process.execPath, ['--import', 'tsx', HERE, '--echo-bot', fake.apiRoot, fake.token], {
      cwd: ROOT,
      stdio: ['ignore', 'ignore', 'inherit'],
    });
    exitEarly(echo, 'echo bot');
    try {
      results.push(await measure('(a) bare grammY echo', fake, echo, 100_000, mark));
    } finally {
      await stop(echo);
    }
  }
  for (const backend of !values.only || values.only === 'kazma' ? backends : []) {
    // Each database's run has chats of its own (a fresh conversation each), and only their users may talk.
    const firstUser = backend === 'postgres' ? 400_000 : 200_000;
    const users = Array.from({ length: opts.chats }, (_, i) => `"telegram:${firstUser + i}"`).join(', ');
    const config = join(dir, `kazma-${backend}.yaml`);
    writeFileSync(
      config,
      `data_dir: ${JSON.stringify(join(dir, `data-${backend}`))}
http: { port: 0 }
model: { name: fake-model, base_url: "${llm.baseURL}", max_retries: 2 }
access: { users: [${users}] }
telegram: { enabled: true, token: "${fake.token}", api_root: "${fake.apiRoot}" }
log: { level: warn }
`,
    );
    const pg = backend === 'postgres' ? await createPgDatabase() : undefined;
    const mark = fake.calls.all.length;
    const log = openSync(join(dir, `kazma-${backend}.log`), 'w');
    const kazma = spawn(process.execPath, [join(ROOT, 'bin/kazma.js'), 'start', '--config', config], {
      cwd: ROOT,
      env: { ...process.env, DATABASE_URL: pg?.url ?? '', REDIS_URL: '' },
      stdio: ['ignore', log, 'inherit'],
    });
    exitEarly(kazma, 'kazma');
    try {
      results.push(await measure(`(b) Kazma, ${backend}`, fake, kazma, firstUser, mark));
    } catch (error) {
      const lines = readFileSync(join(dir, `kazma-${backend}.log`), 'utf8')
        .trim()
        .split('\n')
        .slice(-20);
      console.error(`${(error as Error).message}\nKazma's last log lines (warn and above):\n${lines.join('\n')}`);
      throw error;
    } finally {
      await stop(kazma);
      await pg?.drop();
    }
  }
} finally {
  await llm.close();
  await fake.close();
  rmSync(dir, { recursive: true, force: true });
}

if (costs.length > 0) {
  const ms = (n: number) => n.toFixed(2).padStart(8);
  const st = (n: number) => n.toFixed(1).padStart(6);
  const floors = ['exit', 'async', 'sync', 'stock'] as const;
  console.log(
    `\nCPU ms and SQL statements per turn: the floor (one-node graph) on Kazma's saver by durability, on LangGraph's stock PostgresSaver with its defaults ("floor stock"), and Kazma's simple turn`,
  );
  console.log(
    `${'database'.padEnd(10)} ${floors.map((d) => `floor ${d}`.padStart(16)).join('')} ${'Kazma'.padStart(16)}`,
  );
  for (const c of costs) {
    console.log(
      `${c.backend.padEnd(10)} ${floors.map((d) => `${ms(c.floor[d].cpuMs)} ${st(c.floor[d].statements)}  `).join('')}${ms(c.kazma.cpuMs)} ${st(c.kazma.statements)}`,
    );
  }
  console.log(`\nKazma / floor: median of the ${costs[0]!.rounds} rounds [least–most]`);
  console.log(`${'database'.padEnd(10)} ${floors.map((d) => d.padEnd(22)).join('')}`);
  const ratio = (r: Spread) => `${r.median.toFixed(2)}× [${r.min.toFixed(2)}–${r.max.toFixed(2)}]`.padEnd(22);
  for (const c of costs) console.log(`${c.backend.padEnd(10)} ${floors.map((d) => ratio(c.ratio[d])).join('')}`);
  for (const c of costs.filter((c) => c.profile)) {
    console.log(
      `\nWhere the CPU goes on ${c.backend}: self time per turn by category, sampled by V8's profiler (which slows both kinds alike)`,
    );
    console.log(
      `${'category'.padEnd(40)} ${'floor exit'.padStart(10)} ${'Kazma'.padStart(8)} ${'Kazma − floor'.padStart(14)}`,
    );
    for (const row of costDifference(c.profile!.kazma, c.profile!.exit, 16)) {
      console.log(
        `${row.category.padEnd(40)} ${row.base.toFixed(3).padStart(10)} ${row.kind.toFixed(3).padStart(8)} ${(row.kind - row.base).toFixed(3).padStart(14)}`,
      );
    }
  }
}
if (results.length > 0) {
  const row = (r: Result) =>
    `${r.name.padEnd(24)} ${r.perSecond.toFixed(1).padStart(9)} ${String(r.p50).padStart(8)} ${String(r.p99).padStart(8)} ${`${r.rssStartMb} → ${r.rssEndMb}`.padStart(14)} ${r.seconds.toFixed(1).padStart(8)}`;
  console.log(
    `\n${'path'.padEnd(24)} ${'msgs/s'.padStart(9)} ${'p50 ms'.padStart(8)} ${'p99 ms'.padStart(8)} ${'RSS MB'.padStart(14)} ${'seconds'.padStart(8)}`,
  );
  for (const r of results) console.log(row(r));
  const echo = results.find((r) => r.name.startsWith('(a)'));
  for (const kazma of results.filter((r) => r.name.startsWith('(b)'))) {
    if (echo)
      console.log(
        `ratio ${kazma.name.slice(4)} / bare echo: throughput ${(kazma.perSecond / echo.perSecond).toFixed(3)}×, p50 latency ${(kazma.p50 / Math.max(1, echo.p50)).toFixed(1)}×, p99 latency ${(kazma.p99 / Math.max(1, echo.p99)).toFixed(1)}×`,
      );
  }
}
