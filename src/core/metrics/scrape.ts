// The gauges read when Prometheus scrapes, not kept up to date by the work itself: a backlog is a count
// of rows in the database and a queue's depth is Redis', so the hot paths (a turn's folded statements,
// tests/chat/turn-statements-*.test.ts) gain no statement for the sake of a figure.
import { count, eq, inArray, min, sql } from 'drizzle-orm';
import { Gauge, type Registry } from 'prom-client';
import { type Db, inbox, outbox, runIncidents } from '../db/index.ts';
import type { JobDepths } from '../jobs/index.ts';
import { withTimeout } from '../with-timeout.ts';

/** Where the scrape-time gauges read from. */
export interface ScrapeSources {
  db: Db;
  /** The job driver's queue counts; absent: no `kazma_jobs` series. */
  jobs?: JobDepths;
}

// Rows that still wait for work: what a stuck delivery or a slow model piles up.
const OUTBOX_WAITING = ['pending', 'sending'] as const;
const INBOX_WAITING = ['received', 'running'] as const;
/**
 * How long a scrape waits for Redis: BullMQ's connections queue commands while Redis is away, so a
 * scrape would otherwise hang for the whole outage, each one a request left open. Past it the scrape
 * fails (500) and Prometheus marks the target down.
 */
const QUEUE_TIMEOUT_MS = 2_000;

/** Registers `kazma_leases_held`: the leases `leases` says this process holds, read at scrape time. */
export function watchLeases(registry: Registry, leases: { heldCount(): Promise<number> }): void {
  new Gauge({
    name: 'kazma_leases_held',
    help: 'Thread and chat leases this process holds now (work it is doing that no other process may take).',
    registers: [registry],
    async collect() {
      this.set(await leases.heldCount());
    },
  });
}

/** Registers the backlog, incident and queue gauges on `registry`, each read at scrape time. */
export function watchBacklogs(registry: Registry, sources: ScrapeSources): void {
  const { db, jobs } = sources;
  const registers = [registry];
  new Gauge({
    name: 'kazma_outbox_backlog',
    help: 'Outbox rows (replies, cards, edits) not yet delivered, by state.',
    labelNames: ['state'],
    registers,
    async collect() {
      const rows = await db
        .select({ state: outbox.state, n: count() })
        .from(outbox)
        .where(inArray(outbox.state, [...OUTBOX_WAITING]))
        .groupBy(outbox.state);
      for (const state of OUTBOX_WAITING) this.set({ state }, rows.find((r) => r.state === state)?.n ?? 0);
    },
  });
  new Gauge({
    name: 'kazma_outbox_lag_seconds',
    help: 'Age of the oldest outbox row still pending (0 when none waits).',
    registers,
    async collect() {
      const [row] = await db
        .select({ oldest: min(sql<number>`extract(epoch from now() - ${outbox.createdAt})`) })
        .from(outbox)
        .where(eq(outbox.state, 'pending'));
      this.set(Math.max(0, Number(row?.oldest ?? 0)));
    },
  });
  new Gauge({
    name: 'kazma_inbox_backlog',
    help: 'Inbound events recorded and not yet finished, by state.',
    labelNames: ['state'],
    registers,
    async collect() {
      const rows = await db
        .select({ state: inbox.state, n: count() })
        .from(inbox)
        .where(inArray(inbox.state, [...INBOX_WAITING]))
        .groupBy(inbox.state);
      for (const state of INBOX_WAITING) this.set({ state }, rows.find((r) => r.state === state)?.n ?? 0);
    },
  });
  new Gauge({
    name: 'kazma_incidents_open',
    help: 'Run incidents open now (stalled, stuck or failed work nobody has settled).',
    registers,
    async collect() {
      const [row] = await db.select({ n: count() }).from(runIncidents).where(eq(runIncidents.state, 'open'));
      this.set(row?.n ?? 0);
    },
  });
  if (jobs)
    new Gauge({
      name: 'kazma_jobs',
      help: 'BullMQ jobs per lane and state (waiting, active, delayed, failed), shared by every process.',
      labelNames: ['lane', 'state'],
      registers,
      async collect() {
        for (const [lane, states] of Object.entries(await withTimeout(jobs.depths(), QUEUE_TIMEOUT_MS)))
          for (const [state, n] of Object.entries(states)) this.set({ lane, state }, n);
      },
    });
}

/** A label value from a closed set that config or the registry names (a provider, a tool): kept short. */
export function labelOf(value: string): string {
  return value === '' ? 'none' : value.slice(0, 64);
}
