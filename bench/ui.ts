// Figures for the operators' web page (/ui), on PGlite:
//  (a) server time of the approvals page with 1,000 pending approvals: GET /ui/approvals through the real
//      hono app (session lookup, the count and one page of gates read, gateCard and JSX rendering of each
//      card shown), p50/p95 over `--runs` requests, against the budget of 100 ms. The page shows
//      PAGE_SIZE (50) of the 1,000 with "Showing 1–50 of 1,000 pending" and links to the next pages; the
//      first page and the last (the deepest offset) are timed;
//  (b) live update latency: a decision through DurableApprovalBroker.decide (the chat's path: its card
//      edits dispatched through the outbox) → the page's event stream says `change` → the page's main part
//      fetched again and rendered; p50/p95 over 50 decisions, against the budget of 1 s.
//
//   node --import tsx bench/ui.ts [--runs 20]
//
// Prints figures, asserts nothing. Needs nothing but this checkout (PGlite in memory).
import { performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import { webUi } from '../src/adapters/http/index.ts';
import { PAGE_SIZE } from '../src/adapters/http/ui/paging.tsx';
import { DurableApprovalBroker } from '../src/core/approvals/durable-broker.ts';
import { gateCard } from '../src/core/approvals/index.ts';
import type { Gate } from '../src/core/approvals/port.ts';
import { systemClock } from '../src/core/clock.ts';
import type { Db } from '../src/core/db/index.ts';
import { FirstDecisionWins } from '../src/core/decisions/first-wins.ts';
import { createLogger } from '../src/core/log/index.ts';
import type { OutboxDispatcher } from '../src/core/outbox/index.ts';
import { type Actor, type ChatRef, SurfaceRegistry } from '../src/core/surface/index.ts';
import { freshDatabase } from '../tests/helpers/databases.ts';

const PENDING = 1_000;
const DECISIONS = 50;
const TOKEN = 'bench-operator-token-0123456789abcdef';
const MAYA: Actor = { platform: 'telegram', id: '42', displayName: 'maya' };
const { values } = parseArgs({ options: { runs: { type: 'string', default: '20' } } });
const runs = Number(values.runs);

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
const broker = new DurableApprovalBroker({
  db,
  decisions: new FirstDecisionWins({ db, outbox, surfaces: new SurfaceRegistry(), logger }),
  channels: [],
  logger,
  timeoutMs: 3_600_000,
  grantTtlMs: 3_600_000,
  mayDecide: () => undefined,
  operatorName: () => 'maya',
});
const open = (i: number, run: string) =>
  broker.open({
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
for (let i = 0; i < PENDING; i += 100) await Promise.all(Array.from({ length: 100 }, (_, j) => open(i + j, 'a')));

const stub = async () => ({ ok: false as const, message: 'not in this bench' });
const ui = webUi({
  readToken: '',
  operators: [{ name: 'maya', api_token: TOKEN }],
  db,
  clock: systemClock,
  sessionTtlMs: 3_600_000,
  secureCookies: false,
  core: {
    gates: ({ states, limit, offset }) => broker.list({ states, page: { limit, ...(offset && { offset }) } }),
    countGates: (states) => broker.count({ states }),
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
    skills: () => [],
    agentSkills: () => [],
    settings: () => ({}),
    runtime: async () => ({ saved: [], changes: [] }),
    changes: (listener) => (watchers.add(listener), () => watchers.delete(listener)),
  },
});
const signedIn = await ui.app.request('/ui/sign-in', { method: 'POST', body: new URLSearchParams({ token: TOKEN }) });
const cookie = `kazma_ui=${/kazma_ui=([^;]+)/.exec(signedIn.headers.get('set-cookie') ?? '')?.[1]}`;

// (a) The approvals page with 1,000 pending: it shows them PAGE_SIZE at a time, oldest first. The first
// page (what an operator opens) and the last (the deepest offset) are timed; both read the count too.
const pageTimes = async (path: string) => {
  const times: number[] = [];
  let bytes = 0;
  let cpu = process.cpuUsage();
  for (let i = 0; i < runs + 2; i++) {
    if (i === 2) cpu = process.cpuUsage();
    const started = performance.now();
    const page = await ui.app.request(path, { headers: { cookie } });
    const html = await page.text();
    if (i >= 2) times.push(performance.now() - started); // the first two warm up
    bytes = html.length;
    if ((html.match(/data-gate=/g) ?? []).length !== PAGE_SIZE) throw new Error(`${path} does not show a full page`);
    if (!html.includes(`of ${PENDING.toLocaleString('en')} pending`)) throw new Error(`${path} does not say how many`);
  }
  // This process's CPU per request (PGlite runs in it too): the work, apart from waiting for a shared core.
  const used = process.cpuUsage(cpu);
  return { times, bytes, cpu: (used.user + used.system) / 1000 / runs };
};
const first = await pageTimes('/ui/approvals');
const last = await pageTimes(`/ui/approvals?page=${PENDING / PAGE_SIZE}`);
// Of which: reading a page of gates and the count (the database), and building their cards (no HTML).
const reads: number[] = [];
const cards: number[] = [];
for (let i = 0; i < runs; i++) {
  const started = performance.now();
  const [pending] = await Promise.all([
    broker.list({ states: ['pending'], page: { limit: PAGE_SIZE } }),
    broker.count({ states: ['pending'] }),
  ]);
  const read = performance.now();
  for (const gate of pending) gateCard(gate);
  reads.push(read - started);
  cards.push(performance.now() - read);
}
const p95 = percentile(first.times, 0.95);
const lastP95 = percentile(last.times, 0.95);
console.log(
  `(a) approvals page, ${PENDING} pending shown ${PAGE_SIZE} a page, ${(first.bytes / 1024).toFixed(0)} KB of HTML, ` +
    `${runs} requests each:`,
);
console.log(
  `    first page p50 ${ms(percentile(first.times, 0.5))}, p95 ${ms(p95)}; p95 / 100 ms budget = ${(p95 / 100).toFixed(2)}`,
);
console.log(
  `    last page (offset ${PENDING - PAGE_SIZE}) p50 ${ms(percentile(last.times, 0.5))}, p95 ${ms(lastP95)}; ` +
    `p95 / 100 ms budget = ${(lastP95 / 100).toFixed(2)}`,
);
console.log(`    CPU per request: first page ${ms(first.cpu)}, last page ${ms(last.cpu)}`);
console.log(
  `    of which p50: reading a page and the count ${ms(percentile(reads, 0.5))}, ` +
    `its cards ${ms(percentile(cards, 0.5))}`,
);

// (b) Decision → event → the page's main part again. The decided gates are the newest, on the last page
// (asked for as a page past the end, which shows the last), and the decided one leaves it, as a browser's
// live script would see.
const events = await ui.app.request('/ui/events', { headers: { cookie } });
const reader = events.body!.getReader();
const decoder = new TextDecoder();
const nextChange = async () => {
  for (;;) {
    const { value, done } = await reader.read();
    if (done) throw new Error('the event stream ended');
    if (decoder.decode(value).includes('event: change')) return;
  }
};
const latencies: number[] = [];
const gates = await Promise.all(Array.from({ length: DECISIONS }, (_, i) => open(i, 'b')));
for (const gate of gates) {
  const started = performance.now();
  const changed = nextChange();
  await broker.decide({ gateId: gate.gateId, decision: 'once', actor: MAYA });
  await changed;
  const part = await ui.app.request('/ui/approvals?page=999', { headers: { cookie, 'x-kazma-part': 'main' } });
  if ((await part.text()).includes(gate.gateId)) throw new Error('the decided gate is still shown');
  latencies.push(performance.now() - started);
}
const live95 = percentile(latencies, 0.95);
console.log(`(b) decision → event → page redrawn, ${DECISIONS} decisions:`);
console.log(
  `    p50 ${ms(percentile(latencies, 0.5))}, p95 ${ms(live95)}; p95 / 1 s budget = ${(live95 / 1000).toFixed(2)}`,
);
await reader.cancel();
ui.stop();
await database.dispose();
