// Approval gate figures, on real PostgreSQL and on PGlite:
//  (a) 1,000 concurrent decisions over 100 gates (10 per gate, four actors, once/deny mixed) straight
//      through DurableApprovalBroker.decide, each with the gate its tap was routed by (`seen`, as the
//      button route and ApprovalDecider pass it): winners (must be 100), wall time, and SQL statements
//      per decision (counted by a drizzle logger on a second handle to the same database,
//      tests/approvals/counting-db.ts; the route's own read of the gate is not in the count);
//  (b) decision → every card edited: three in-process surfaces behind the real BullMQ outbox worker;
//      per gate, decide() start → the last of its three edits delivered; p50/p99 over 100 gates against
//      a baseline from the same run (three bare BullMQ jobs on the same Redis, added → all processed),
//      and the statements one uncontended winning decision issues (claim, audit, card edits);
//  (c) a 2-of-3 policy (approvals.policies: two of maya, ana, ben): 1,000 concurrent approvals over 100 gates
//      (10 per gate from the three approvers): gates reaching the quorum exactly once, decisions/s and SQL
//      statements per decision (an approval counted, a repeat told, a loser re-counting included).
//
//   node --import tsx bench/approvals.ts [--only decisions|edits|quorum] [--database pglite|postgres] [--runs 1]
//
// `--only` runs one part, `--database` one database; `--runs N` repeats (a) N times on each database
// (a fresh database each time), to see past the noise of a shared machine. (a) also prints the CPU time
// this process spent during the wall time; the rest is waiting (on the database, or for a core).
// Prints figures, asserts nothing (tests/bench/ runs it to see that it still does). Needs PostgreSQL (KAZMA_TEST_PG_URL, default
// postgres://postgres@127.0.0.1:5432/postgres) and Redis on 127.0.0.1:6379, like the tests.
import { randomBytes } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import { DurableApprovalBroker } from '../src/core/approvals/durable-broker.ts';
import { ApprovalPolicies } from '../src/core/approvals/policy.ts';
import { auditOf } from '../src/core/approvals/gate-store.ts';
import type { Decision, Gate } from '../src/core/approvals/port.ts';
import {
  SurfaceRegistry,
  type Actor,
  type Card,
  type ChatRef,
  type MessageRef,
  type Surface,
} from '../src/core/surface/index.ts';
import type { Db } from '../src/core/db/index.ts';
import { FirstDecisionWins } from '../src/core/decisions/first-wins.ts';
import { createLogger } from '../src/core/log/index.ts';
import { openOutbox, type OutboxDispatcher } from '../src/core/outbox/index.ts';
import { Queue, Worker } from 'bullmq';
import { JobKinds } from '../src/core/jobs/port.ts';
import { JobOutboxDispatcher, outboxDeliveryJob } from '../src/core/outbox/jobs.ts';
import { BullJobDriver } from '../src/jobs/driver.ts';

interface QueueConnection {
  connection: typeof TEST_REDIS;
  prefix: string;
}
import { BACKENDS, freshDatabase, type Backend } from '../tests/helpers/databases.ts';
import { countingDb } from '../tests/approvals/counting-db.ts';
import { TEST_REDIS } from '../tests/helpers/outbox.ts';

const GATES = 100;
const PER_GATE = 10;
const ACTORS: Actor[] = ['42', '43', '44', '45'].map((id) => ({ platform: 'telegram', id }));
const NAMES: Record<string, string> = { '42': 'maya', '43': 'ana', '44': 'ben', '45': 'cy' };
const ORIGIN: ChatRef = 'telegram:1';
const CHANNELS: ChatRef[] = ['slack:C1', 'discord:D1'];
const logger = createLogger({ level: 'silent' });
const noOutbox: OutboxDispatcher = { dispatch: async () => {} };

/** approvals.policies with one 2-of-3 policy on `launch`. */
const TWO_OF_THREE = new ApprovalPolicies({
  approvers: [],
  requester_may_approve: true,
  timeout: 3_600_000,
  grant_ttl: 3_600_000,
  channels: [],
  lease_ttl: 15_000,
  policies: [
    {
      name: 'two-of-three',
      match: { tools: ['launch'] },
      approvals: 2,
      approvers: ['maya', 'ana', 'ben'],
      escalate_after: undefined,
      escalate_to: [],
      deny_reason: 'optional',
    },
  ],
  require: {},
});

function broker(db: Db, outbox: OutboxDispatcher, channels: ChatRef[], policies?: ApprovalPolicies) {
  return new DurableApprovalBroker({
    ...(policies && { policies }),
    db,
    decisions: new FirstDecisionWins({ db, outbox, surfaces: new SurfaceRegistry(), logger }),
    channels,
    logger,
    timeoutMs: 3_600_000,
    grantTtlMs: 3_600_000,
    mayDecide: () => undefined,
    operatorName: (actor) => NAMES[actor.id],
  });
}

function openGates(b: DurableApprovalBroker, run: string): Promise<Gate[]> {
  return Promise.all(
    Array.from({ length: GATES }, (_, i) =>
      b.open({
        threadId: `${run}-t${i}`,
        interruptId: `${run}-i${i}`,
        chat: ORIGIN,
        requester: ACTORS[0]!,
        call: {
          kind: 'tool_approval',
          callId: `c${i}`,
          tool: 'launch',
          args: { target: `t${i}` },
          tier: 'danger',
          reason: 'bench',
        },
      }),
    ),
  );
}

function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((x, y) => x - y);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(p * sorted.length) - 1))]!;
}

const ms = (value: number) => `${value.toFixed(1)} ms`;

/** (a) 1,000 decisions at once over 100 gates. */
async function decisions(kind: Backend): Promise<void> {
  const database = await freshDatabase(kind);
  const counted = countingDb(database);
  try {
    const b = broker(counted.db, noOutbox, []);
    const gates = await openGates(b, 'a');
    // As a tap arrives: the gate it was routed by (read to find its chat's queue) comes along as `seen`.
    const attempts = gates.flatMap((gate, g) =>
      Array.from({ length: PER_GATE }, (_, k) => ({
        gateId: gate.gateId,
        seen: gate,
        actor: ACTORS[(g + k) % ACTORS.length]!,
        decision: (k % 3 === 0 ? 'deny' : 'once') as Decision,
      })),
    );
    for (let i = attempts.length - 1; i > 0; i--) {
      // interleave the gates
      const j = Math.floor(Math.random() * (i + 1));
      [attempts[i], attempts[j]] = [attempts[j]!, attempts[i]!];
    }
    counted.reset();
    const cpu = process.cpuUsage();
    const start = performance.now();
    const outcomes = await Promise.all(attempts.map((a) => b.decide(a)));
    const wall = performance.now() - start;
    const { user, system } = process.cpuUsage(cpu);
    const statements = counted.statements.length;
    const winners = outcomes.filter((o) => o.ok).length;
    const audited = await Promise.all(
      gates.map(async (g) => (await auditOf(database.db, g.gateId)).filter((r) => r.outcome === 'won').length),
    );
    const gatesWithOneWinner = audited.filter((n) => n === 1).length;
    console.log(
      `(a) ${kind.padEnd(8)} ${attempts.length} decisions over ${GATES} gates: winners ${winners} (gates with exactly one 'won' audit row: ${gatesWithOneWinner}), wall ${ms(wall)} (node CPU ${ms((user + system) / 1000)}), ${(attempts.length / (wall / 1000)).toFixed(0)} decisions/s, ${(statements / attempts.length).toFixed(2)} statements per decision (${statements} in all)`,
    );
  } finally {
    await counted.close();
    await database.dispose();
  }
}

/** (c) 1,000 approvals at once over 100 gates under a 2-of-3 policy. */
async function quorum(kind: Backend): Promise<void> {
  const database = await freshDatabase(kind);
  const counted = countingDb(database);
  try {
    const b = broker(counted.db, noOutbox, [], TWO_OF_THREE);
    const gates = await openGates(b, 'c');
    const approvers = ACTORS.slice(0, 3);
    const attempts = gates.flatMap((gate, g) =>
      Array.from({ length: PER_GATE }, (_, k) => ({
        gateId: gate.gateId,
        seen: gate,
        actor: approvers[(g + k) % approvers.length]!,
        decision: 'once' as Decision,
      })),
    );
    for (let i = attempts.length - 1; i > 0; i--) {
      const j = Math.floor(Math.random() * (i + 1));
      [attempts[i], attempts[j]] = [attempts[j]!, attempts[i]!];
    }
    counted.reset();
    const start = performance.now();
    const outcomes = await Promise.all(attempts.map((a) => b.decide(a)));
    const wall = performance.now() - start;
    const statements = counted.statements.length;
    const winners = outcomes.filter((o) => o.ok).length;
    const rows = await Promise.all(gates.map((g) => auditOf(database.db, g.gateId)));
    const exact = rows.filter(
      (r) => r.filter((x) => x.outcome === 'won').length === 1 && r.filter((x) => x.outcome === 'counted').length === 1,
    ).length;
    console.log(
      `(c) ${kind.padEnd(8)} 2-of-3 policy, ${attempts.length} approvals over ${GATES} gates: quorums ${winners} (gates with exactly one 'counted' and one 'won' row: ${exact}), wall ${ms(wall)}, ${(attempts.length / (wall / 1000)).toFixed(0)} decisions/s, ${(statements / attempts.length).toFixed(2)} statements per decision (${statements} in all)`,
    );
  } finally {
    await counted.close();
    await database.dispose();
  }
}

/** Three in-process surfaces that note when each gate's card edits arrive. */
function timedSurfaces(onEdit: (gateId: string, at: number) => void): Surface[] {
  return ['telegram', 'slack', 'discord'].map((platform) => {
    let n = 0;
    return {
      platform,
      send: async (chat: ChatRef): Promise<MessageRef> => ({ chat, id: String(++n) }),
      sendCard: async (chat: ChatRef): Promise<MessageRef> => ({ chat, id: String(++n) }),
      editCard: async (_ref: MessageRef, card: Card) =>
        onEdit(card.fields.find((f) => f.label === 'Gate')!.value, performance.now()),
      typing: async () => {},
    };
  });
}

function connection(): QueueConnection {
  return { connection: TEST_REDIS, prefix: `kazma-bench-${randomBytes(4).toString('hex')}` };
}

/** (b) decide() → the last of the gate's three card edits delivered, per gate. */
async function edits(kind: Backend): Promise<{ latencies: number[]; statementsPerWin: number }> {
  const database = await freshDatabase(kind);
  const counted = countingDb(database);
  const queue = connection();
  const waiting = new Map<string, { left: number; done: (at: number) => void }>();
  const surfaces = new SurfaceRegistry();
  for (const s of timedSurfaces((gateId, at) => {
    const w = waiting.get(gateId);
    if (w && --w.left === 0) w.done(at);
  }))
    surfaces.attach(s);
  const kinds = new JobKinds();
  const delivery = outboxDeliveryJob({ db: database.db, surfaces });
  kinds.register(delivery);
  const driver = new BullJobDriver({
    connection: queue.connection,
    prefix: queue.prefix,
    kinds,
    concurrency: { outbox: 8 },
    logger,
  });
  driver.startWorkers();
  const worker = new JobOutboxDispatcher({ queue: driver, kind: delivery, db: database.db, surfaces, logger });
  try {
    const b = broker(counted.db, worker, CHANNELS);
    const gates = await openGates(b, 'b');
    await allDelivered(database.db); // every card is out before timing, so no edit waits for its card
    const latencies: number[] = [];
    counted.reset(); // only the broker uses the counting handle; the delivery worker has its own
    for (const [i, gate] of gates.entries()) {
      const delivered = new Promise<number>((resolve) => waiting.set(gate.gateId, { left: 3, done: resolve }));
      const start = performance.now();
      await b.decide({
        gateId: gate.gateId,
        seen: gate,
        decision: i % 2 ? 'once' : 'deny',
        actor: ACTORS[i % ACTORS.length]!,
      });
      latencies.push((await delivered) - start);
    }
    return { latencies, statementsPerWin: counted.statements.length / gates.length };
  } finally {
    await driver.close();
    await counted.close();
    await obliterate(queue, 'outbox');
    await database.dispose();
  }
}

async function allDelivered(db: Db): Promise<void> {
  const deadline = Date.now() + 30_000;
  while ((await openOutbox(db)).length > 0) {
    if (Date.now() > deadline) throw new Error('the cards were not delivered within 30 s');
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** The floor under (b): three bare BullMQ jobs added at once → the last one processed. */
async function baseline(samples: number): Promise<number[]> {
  const queue = connection();
  const name = 'bench-baseline';
  let pending: { left: number; done: (at: number) => void } | undefined;
  const q = new Queue(name, queue);
  const w = new Worker(
    name,
    async () => {
      if (pending && --pending.left === 0) pending.done(performance.now());
    },
    { ...queue, concurrency: 8 },
  );
  try {
    await w.waitUntilReady();
    const latencies: number[] = [];
    for (let i = 0; i < samples; i++) {
      const done = new Promise<number>((resolve) => (pending = { left: 3, done: resolve }));
      const start = performance.now();
      await q.addBulk([0, 1, 2].map((k) => ({ name: 'noop', data: { i, k }, opts: { removeOnComplete: true } })));
      latencies.push((await done) - start);
    }
    return latencies;
  } finally {
    await w.close();
    await q.obliterate({ force: true });
    await q.close();
  }
}

async function obliterate(queue: QueueConnection, name: string): Promise<void> {
  const q = new Queue(name, queue);
  await q.obliterate({ force: true });
  await q.close();
}

const { values } = parseArgs({
  options: { only: { type: 'string' }, database: { type: 'string' }, runs: { type: 'string', default: '1' } },
});
if (values.only && !['decisions', 'edits', 'quorum'].includes(values.only))
  throw new Error('--only is decisions, edits or quorum');
if (values.database && !(BACKENDS as readonly string[]).includes(values.database))
  throw new Error(`--database is one of ${BACKENDS.join(', ')}`);
const runs = Number(values.runs);
if (!Number.isInteger(runs) || runs < 1) throw new Error('--runs must be a positive integer');
const backends = values.database ? [values.database as Backend] : BACKENDS;

const began = performance.now();
if (!values.only || values.only === 'decisions')
  for (const kind of backends) for (let run = 0; run < runs; run++) await decisions(kind);
if (!values.only || values.only === 'quorum')
  for (const kind of backends) for (let run = 0; run < runs; run++) await quorum(kind);
if (values.only === 'decisions' || values.only === 'quorum') {
  console.log(`total ${((performance.now() - began) / 1000).toFixed(1)} s`);
  process.exit(0);
}
const floor = await baseline(GATES);
console.log(
  `(b) baseline: 3 bare BullMQ jobs added → all processed, ${GATES} samples: p50 ${ms(percentile(floor, 0.5))}, p99 ${ms(percentile(floor, 0.99))}`,
);
for (const kind of backends) {
  const { latencies: lat, statementsPerWin } = await edits(kind);
  const [p50, p99] = [percentile(lat, 0.5), percentile(lat, 0.99)];
  console.log(
    `(b) ${kind.padEnd(8)} decide() → last of 3 card edits delivered, ${lat.length} gates: p50 ${ms(p50)}, p99 ${ms(p99)}` +
      ` (×${(p50 / percentile(floor, 0.5)).toFixed(1)} / ×${(p99 / percentile(floor, 0.99)).toFixed(1)} the baseline);` +
      ` ${statementsPerWin.toFixed(1)} statements per uncontended winning decision`,
  );
}
console.log(`total ${((performance.now() - began) / 1000).toFixed(1)} s`);
process.exit(0);
