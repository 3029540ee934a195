// Figures for the operators' web page (/ui), on PGlite:
//  (a) server time of the approvals page with 1,000 pending approvals: GET /ui/approvals through the real
//      hono app (session lookup; one statement picking a page of gates and counting them all, then the
//      rows not already read at their version; each shown gate's card built and written), p50/p95 over
//      `--runs` requests, against the budget of 100 ms, and against a baseline timed in the same
//      rounds: the smallest signed-in page. The page shows PAGE_SIZE (50) of the 1,000 with "Showing 1–50
//      of 1,000 pending" and links to the next pages; the first page and the last (the deepest offset) are
//      timed, and the first page again from an app that keeps no gate read (a new process, or every gate
//      changed since: each row read whole). Once with this process alone, once with `--busy` others spinning;
//  (b) live update latency: a decision through DurableApprovalBroker.decide (the chat's path: its card
//      edits dispatched through the outbox) → the page's event stream says `change` → the page's main part
//      fetched again and rendered; p50/p95 over 50 decisions, against the budget of 1 s.
//
//   node --import tsx bench/ui.ts [--runs 20] [--busy N] [--profile FILE.cpuprofile]
//
// --busy N: (a) again with N other programs spinning on the cores (default: as many as there are cores),
// as on a shared machine where other work's tests and builds run.
//
// Prints figures, asserts nothing. Needs nothing but this checkout (PGlite in memory).
import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { Session } from 'node:inspector/promises';
import { availableParallelism } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { createInterface } from 'node:readline';
import { parseArgs } from 'node:util';
import { webUi } from '../src/adapters/http/index.ts';
import { PAGE_SIZE } from '../src/adapters/http/ui/paging.tsx';
import { DurableApprovalBroker } from '../src/core/approvals/durable-broker.ts';
import { GatePages, gateCard } from '../src/core/approvals/index.ts';
import type { Gate } from '../src/core/approvals/port.ts';
import { systemClock } from '../src/core/clock.ts';
import { type Db, migrateDatabase, openDatabase } from '../src/core/db/index.ts';
import { FirstDecisionWins } from '../src/core/decisions/first-wins.ts';
import { createLogger } from '../src/core/log/index.ts';
import type { OutboxDispatcher } from '../src/core/outbox/index.ts';
import { type Actor, type ChatRef, SurfaceRegistry } from '../src/core/surface/index.ts';
import { createPgDatabase, freshDatabase, TEST_PG_ADMIN_URL } from '../tests/helpers/databases.ts';

const PENDING = 1_000;
const DECISIONS = 50;
const TOKEN = 'bench-operator-token-0123456789abcdef';
const MAYA: Actor = { platform: 'telegram', id: '42', displayName: 'maya' };
const { values } = parseArgs({
  options: { runs: { type: 'string', default: '20' }, busy: { type: 'string' }, profile: { type: 'string' } },
});
const runs = Number(values.runs);
const BUSY = Number(values.busy ?? availableParallelism());

const percentile = (xs: number[], p: number) => {
  const sorted = [...xs].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(p * sorted.length) - 1))]!;
};
const ms = (x: number) => `${x.toFixed(1)} ms`;

const database = await freshDatabase('pglite');
const db: Db = database.db;
/** The outbox as the page sees it: every dispatch tells the page's listeners (JobOutboxDispatcher.watch). */
const watchers = new Set<() => void>();
const outbox: OutboxDispatcher = {
  dispatch: async () => {
    for (const watcher of watchers) watcher();
  },
};
const logger = createLogger({ level: 'silent' });
/** The approvals broker of one process: its decisions dispatch through `outbox` (the chat's path). */
const brokerOn = (db: Db, outbox: OutboxDispatcher) =>
  new DurableApprovalBroker({
    db,
    decisions: new FirstDecisionWins({ db, outbox, surfaces: new SurfaceRegistry(), logger }),
    channels: [],
    logger,
    timeoutMs: 3_600_000,
    grantTtlMs: 3_600_000,
    mayDecide: () => undefined,
    operatorName: () => 'maya',
  });
const broker = brokerOn(db, outbox);
const openOn = (on: DurableApprovalBroker, i: number, run: string) =>
  on.open({
    threadId: `${run}-t${i}`,
    interruptId: `${run}-i${i}`,
    chat: 'telegram:1' as ChatRef,
    requester: MAYA,
    call: {
      kind: 'tool_approval',
      callId: `c${i}`,
      tool: 'launch',
      args: { target: `pad ${i}` },
      tier: 'danger',
      reason: 'bench',
    },
  });
const open = (i: number, run: string) => openOn(broker, i, run);
for (let i = 0; i < PENDING; i += 100) await Promise.all(Array.from({ length: 100 }, (_, j) => open(i + j, 'a')));

type UiApp = ReturnType<typeof webUi>['app'];
const stub = async () => ({ ok: false as const, message: 'not in this bench' });
/**
 * The page's app on `on` (default this PGlite); `keep`: how many gates its GatePages keeps read (0: every
 * request reads every row whole); `changes`: what tells it something changed (default this process's outbox).
 */
const webPage = (options: { on?: Db; keep?: number; changes?: (listener: () => void) => () => void } = {}) => {
  const on = options.on ?? db;
  const pages = new GatePages({ db: on, ...(options.keep !== undefined && { keep: options.keep }) });
  return webUi({
    readToken: '',
    operators: [{ name: 'maya', api_token: TOKEN }],
    db: on,
    clock: systemClock,
    sessionTtlMs: 3_600_000,
    secureCookies: false,
    core: {
      gatePage: (filter) => pages.page(filter),
      card: (gate: Gate) => gateCard(gate),
      refusal: () => undefined,
      decide: (input) => broker.decide(input),
      audit: async () => [],
      tasks: async () => [],
      cancelTask: stub,
      schedules: async () => [],
      cancelSchedule: stub,
      incidents: async () => [],
      answer: stub,
      tools: () => [],
      setTool: stub,
      servers: async () => [],
      addServer: stub,
      setServer: stub,
      removeServer: stub,
      skills: () => [],
      agentSkills: () => [],
      settings: () => ({}),
      runtime: async () => ({ saved: [], changes: [] }),
      changes: options.changes ?? ((listener) => (watchers.add(listener), () => watchers.delete(listener))),
    },
  });
};
const ui = webPage();
const cold = webPage({ keep: 0 });
/** Signs in to `app`; its session cookie. */
const signIn = async (app: UiApp) => {
  const signedIn = await app.request('/ui/sign-in', { method: 'POST', body: new URLSearchParams({ token: TOKEN }) });
  return `kazma_ui=${/kazma_ui=([^;]+)/.exec(signedIn.headers.get('set-cookie') ?? '')?.[1]}`;
};
const cookie = await signIn(ui.app);

// (a) The approvals page with 1,000 pending: it shows them PAGE_SIZE at a time, oldest first. The first
// page (what an operator opens) and the last (the deepest offset) are timed; both read the count too.
// The baseline, timed in the same rounds (so under the same load): the smallest signed-in page, incidents
// with none open — the session looked up, the layout, the headers: what any page costs before its own.
const FIRST = '/ui/approvals';
const LAST = `/ui/approvals?page=${PENDING / PAGE_SIZE}`;
const BASELINE = '/ui/incidents';
/** The first page again, from an app that keeps no gate read: every row read whole and parsed, every time. */
const COLD = '/ui/approvals?cold';
const timed = async (path: string) => {
  const cpu = process.cpuUsage();
  const started = performance.now();
  const app = path === COLD ? cold.app : ui.app;
  const html = await (await app.request(path, { headers: { cookie } })).text();
  const wall = performance.now() - started;
  const used = process.cpuUsage(cpu);
  if (path !== BASELINE) {
    if ((html.match(/data-gate=/g) ?? []).length !== PAGE_SIZE) throw new Error(`${path} does not show a full page`);
    if (!html.includes(`of ${PENDING.toLocaleString('en')} pending`)) throw new Error(`${path} does not say how many`);
  }
  return { wall, cpu: (used.user + used.system) / 1000, bytes: html.length };
};
type Series = { times: number[]; cpu: number[]; bytes: number };
/** `runs` rounds of the four requests, after two rounds of warm-up; `busy` programs spin meanwhile. */
const measure = async (busy: number): Promise<Record<string, Series>> => {
  // Other processes wanting the cores, as the tests and builds of other work do on a shared machine.
  const spinners = Array.from({ length: busy }, () =>
    spawn(process.execPath, ['-e', 'for (;;) {}'], { stdio: 'ignore' }),
  );
  const series: Record<string, Series> = {};
  try {
    for (let round = 0; round < runs + 2; round++)
      for (const path of [FIRST, LAST, COLD, BASELINE]) {
        const one = await timed(path);
        const s = (series[path] ??= { times: [], cpu: [], bytes: 0 });
        s.bytes = one.bytes;
        if (round < 2) continue; // warm-up
        s.times.push(one.wall);
        s.cpu.push(one.cpu);
      }
  } finally {
    for (const spinner of spinners) spinner.kill();
  }
  return series;
};
const median = (xs: number[]) => percentile(xs, 0.5);
const report = (label: string, series: Record<string, Series>) => {
  const base = series[BASELINE]!;
  const base95 = percentile(base.times, 0.95);
  console.log(`    ${label}:`);
  for (const [path, name] of [
    [FIRST, 'first page'],
    [LAST, `last page (offset ${PENDING - PAGE_SIZE})`],
    [COLD, 'first page, no gate kept read'],
  ] as const) {
    const s = series[path]!;
    const p95 = percentile(s.times, 0.95);
    console.log(
      `      ${name} p50 ${ms(median(s.times))}, p95 ${ms(p95)}; p95 / 100 ms budget = ${(p95 / 100).toFixed(2)}; ` +
        `p95 / baseline p95 = ${(p95 / base95).toFixed(1)}; CPU p50 ${ms(median(s.cpu))}`,
    );
  }
  console.log(
    `      baseline (${BASELINE}, none open) p50 ${ms(median(base.times))}, p95 ${ms(base95)}; CPU p50 ${ms(median(base.cpu))}`,
  );
};
// --profile FILE: a CPU profile of (a)'s requests alone (open it in Chrome's DevTools or speedscope).
const profiler = values.profile ? new Session() : undefined;
if (profiler) {
  profiler.connect();
  await profiler.post('Profiler.enable');
  await profiler.post('Profiler.start');
}
const quiet = await measure(0);
if (profiler) {
  const { profile } = await profiler.post('Profiler.stop');
  writeFileSync(values.profile!, JSON.stringify(profile));
  profiler.disconnect();
}
const busy = await measure(BUSY);
// Of which: reading a page of gates and the count (the database: with the gates kept read, and with none
// kept), and building their cards (no HTML).
const warmReads = new GatePages({ db });
const coldReads = new GatePages({ db, keep: 0 });
const reads: number[] = [];
const coldRead: number[] = [];
const cards: number[] = [];
for (let i = 0; i < runs; i++) {
  let started = performance.now();
  const { gates: shown } = await warmReads.page({ states: ['pending'], limit: PAGE_SIZE });
  if (i > 0) reads.push(performance.now() - started); // the first reads every row
  started = performance.now();
  await coldReads.page({ states: ['pending'], limit: PAGE_SIZE });
  coldRead.push(performance.now() - started);
  started = performance.now();
  for (const gate of shown) gateCard(gate);
  cards.push(performance.now() - started);
}
console.log(
  `(a) approvals page, ${PENDING} pending shown ${PAGE_SIZE} a page, ` +
    `${(quiet[FIRST]!.bytes / 1024).toFixed(0)} KB of HTML, ${runs} requests each:`,
);
report('this process alone', quiet);
report(`with ${BUSY} other processes spinning (as many as cores: ${availableParallelism()})`, busy);
console.log(
  `    of which p50 (alone): reading a page and the count ${ms(percentile(reads, 0.5))} ` +
    `(every row read whole: ${ms(percentile(coldRead, 0.5))}), its cards ${ms(percentile(cards, 0.5))}`,
);

// (b) Decision → event → the page's main part again. The decided gates are the newest, on the last page
// (asked for as a page past the end, which shows the last), and the decided one leaves it, as a browser's
// live script would see.
/** The page's event stream on `app`: `next()` resolves at its next `change`. */
const changeEvents = async (app: UiApp, session: string) => {
  const reader = (await app.request('/ui/events', { headers: { cookie: session } })).body!.getReader();
  const decoder = new TextDecoder();
  return {
    next: async () => {
      for (;;) {
        const { value, done } = await reader.read();
        if (done) throw new Error('the event stream ended');
        if (decoder.decode(value).includes('event: change')) return;
      }
    },
    close: () => reader.cancel(),
  };
};
/** The last page's main part as the live script fetches it; whether it still shows `gateId`. */
const stillShown = async (app: UiApp, session: string, gateId: string) => {
  const part = await app.request('/ui/approvals?page=999', { headers: { cookie: session, 'x-kazma-part': 'main' } });
  return (await part.text()).includes(gateId);
};
const live = await changeEvents(ui.app, cookie);
const latencies: number[] = [];
const gates = await Promise.all(Array.from({ length: DECISIONS }, (_, i) => open(i, 'b')));
for (const gate of gates) {
  const started = performance.now();
  const changed = live.next();
  await broker.decide({ gateId: gate.gateId, decision: 'once', actor: MAYA });
  await changed;
  if (await stillShown(ui.app, cookie, gate.gateId)) throw new Error('the decided gate is still shown');
  latencies.push(performance.now() - started);
}
const live95 = percentile(latencies, 0.95);
console.log(`(b) decision → event → page redrawn, ${DECISIONS} decisions:`);
console.log(
  `    p50 ${ms(percentile(latencies, 0.5))}, p95 ${ms(live95)}; p95 / 1 s budget = ${(live95 / 1000).toFixed(2)}`,
);
await live.close();
ui.stop();
cold.stop();
await database.dispose();

// (c) The same across processes on PostgreSQL: the page here, listening (LISTEN kazma_changes); the decision
// made by another process (bench/ui-decider.ts) whose outbox dispatch sends NOTIFY, as every process's does
// (src/assembly/base.ts). From asking that process to decide until the page here redrew without the gate.
// Baseline in the same run: (b)'s p95, the same page in one process.
let pg: Awaited<ReturnType<typeof createPgDatabase>> | undefined;
try {
  pg = await createPgDatabase();
} catch (error) {
  console.log(`(c) skipped: no PostgreSQL at ${TEST_PG_ADMIN_URL} (${(error as Error).message})`);
}
if (pg) {
  const shared = await openDatabase({ url: pg.url, poolSize: 10 });
  const decider = spawn(process.execPath, ['--import', 'tsx', join(import.meta.dirname, 'ui-decider.ts'), pg.url], {
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  try {
    await migrateDatabase(shared);
    const here = brokerOn(shared.db, { dispatch: async () => {} });
    const page = webPage({
      on: shared.db,
      changes: (listener) => {
        const listening = shared.changes!.listen(listener);
        return () => void listening.then((stop) => stop());
      },
    });
    const session = await signIn(page.app);
    const stream = await changeEvents(page.app, session);
    const answers = createInterface({ input: decider.stdout! })[Symbol.asyncIterator]();
    const answer = async () => String((await answers.next()).value);
    if ((await answer()) !== 'ready') throw new Error('the deciding process did not start');
    const across: number[] = [];
    for (let i = 0; i < DECISIONS; i++) {
      const gate = await openOn(here, i, 'c');
      const started = performance.now();
      decider.stdin!.write(`${gate.gateId}\n`);
      // Every change redraws, as the live script does, until the decided gate is gone.
      do await stream.next();
      while (await stillShown(page.app, session, gate.gateId));
      across.push(performance.now() - started);
      if ((await answer()) !== `decided ${gate.gateId}`) throw new Error('the other process did not decide');
    }
    const across95 = percentile(across, 0.95);
    console.log(`(c) decision in another process on PostgreSQL → NOTIFY → page redrawn here, ${DECISIONS} decisions:`);
    console.log(
      `    p50 ${ms(percentile(across, 0.5))}, p95 ${ms(across95)}; p95 / 1 s budget = ${(across95 / 1000).toFixed(2)}; ` +
        `p95 / (b) p95 = ${(across95 / live95).toFixed(1)}`,
    );
    await stream.close();
    page.stop();
  } finally {
    decider.stdin!.end();
    await new Promise((done) => decider.once('exit', done));
    await shared.close();
    await pg.drop();
  }
}
