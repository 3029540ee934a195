import { randomBytes } from 'node:crypto';
import { and, count, eq, gt, inArray, isNull, lt, ne, sql } from 'drizzle-orm';
import {
  type Db,
  approvalGates,
  approvalGrants,
  decisionAudit,
  type GatePolicy,
  type GateState,
  type StoredActor,
} from '../db/index.ts';
import { canonicalArgsHash } from '../effects/index.ts';
import type { GatePage } from './port.ts';
import type { GateRow } from './transition.ts';

/** A short id, safe in URLs and button payloads (12 base64url characters, 72 random bits). */
export function newGateId(): string {
  return randomBytes(9).toString('base64url');
}

export interface NewGate {
  id: string;
  interruptId: string;
  threadId: string;
  callId: string;
  originChat?: string;
  requester?: StoredActor;
  tool: string;
  args: unknown;
  tier?: string;
  reason?: string;
  policy?: GatePolicy | undefined;
  expiresAt: Date;
}

/**
 * Inserts a pending gate and its audit's `requested` row; pass a transaction so both, and its cards in the outbox,
 * are written together.
 */
export async function insertGate(db: Db, gate: NewGate): Promise<GateRow> {
  const [row] = await db
    .insert(approvalGates)
    .values({
      ...gate,
      policy: gate.policy ?? null,
      args: gate.args ?? {},
      argsHash: canonicalArgsHash(gate.args ?? {}),
      state: 'pending',
    })
    .returning();
  await auditRequest(db, row!);
  return row!;
}

export async function getGate(db: Db, id: string): Promise<GateRow | undefined> {
  const [row] = await db.select().from(approvalGates).where(eq(approvalGates.id, id));
  return row;
}

/**
 * Reads a gate and holds its row until the caller's transaction ends (`SELECT … FOR UPDATE`): a
 * state change of that gate (transitionGate) waits until then. Pass a transaction as `db`.
 */
export async function lockGate(db: Db, id: string): Promise<GateRow | undefined> {
  const [row] = await db.select().from(approvalGates).where(eq(approvalGates.id, id)).for('update');
  return row;
}

export async function gatesInState(
  db: Db,
  states: GateState[],
  filter: { threadId?: string; chat?: string; page?: GatePage } = {},
): Promise<GateRow[]> {
  const conditions = [inArray(approvalGates.state, states)];
  if (filter.threadId) conditions.push(eq(approvalGates.threadId, filter.threadId));
  if (filter.chat) conditions.push(eq(approvalGates.originChat, filter.chat));
  // Ordered by creation to the millisecond (what a cursor carries: a JS Date), then id, so a page's
  // last gate names exactly where the next page starts, with no gate twice and none left out.
  const createdMs = sql`date_trunc('milliseconds', ${approvalGates.createdAt})`;
  const after = filter.page?.after;
  if (after)
    conditions.push(
      sql`(${createdMs}, ${approvalGates.id}) > (${after.createdAt.toISOString()}::timestamptz, ${after.gateId})`,
    );
  if (!filter.page)
    return db
      .select()
      .from(approvalGates)
      .where(and(...conditions))
      .orderBy(createdMs, approvalGates.id);
  // A page is picked by the ids alone, then only its rows are read whole: sorting every matching row with
  // all its columns (the arguments, the policy) to keep 50 cost the web page's approvals most of its read.
  const picked = db
    .select({ id: approvalGates.id })
    .from(approvalGates)
    .where(and(...conditions))
    .orderBy(createdMs, approvalGates.id)
    .limit(filter.page.limit);
  const page = filter.page.offset ? picked.offset(filter.page.offset) : picked;
  return db.select().from(approvalGates).where(inArray(approvalGates.id, page)).orderBy(createdMs, approvalGates.id);
}

/** How many gates are in `states`. */
export async function countGates(db: Db, states: GateState[]): Promise<number> {
  const [row] = await db.select({ n: count() }).from(approvalGates).where(inArray(approvalGates.state, states));
  return row?.n ?? 0;
}

/** Pending gates whose time is up, oldest first. */
export async function expiredGates(db: Db, now: Date): Promise<GateRow[]> {
  return db
    .select()
    .from(approvalGates)
    .where(and(eq(approvalGates.state, 'pending'), lt(approvalGates.expiresAt, now)))
    .orderBy(approvalGates.expiresAt);
}

export type AuditOutcome =
  | 'requested'
  | 'won'
  | 'counted'
  | 'duplicate'
  | 'lost'
  | 'refused'
  | 'expired'
  | 'superseded'
  | 'escalated'
  | 'unknown_gate';

/**
 * Records one decision attempt on a gate, whatever came of it (a `decision_audit` row of kind `gate`); an
 * attempt whose event already has its row (the event run again) records nothing, unless this is a later round of
 * the one attempt (`again`): then its row becomes this outcome.
 */
export async function audit(
  db: Db,
  entry: {
    gateId: string;
    actor?: StoredActor;
    decision?: string;
    outcome: AuditOutcome;
    detail?: string;
    eventKey?: string;
    again?: boolean;
  },
): Promise<void> {
  const { gateId, again, ...rest } = entry;
  const row = { ...rest, kind: 'gate' as const, subjectId: gateId, platform: entry.actor?.platform };
  const target = [decisionAudit.kind, decisionAudit.subjectId, decisionAudit.eventKey];
  const insert = db.insert(decisionAudit).values(row);
  await (again
    ? insert.onConflictDoUpdate({
        target,
        set: {
          id: sql`excluded.id`, // its place among the attempts is this round's (compare-and-set.ts)
          actor: row.actor ?? null,
          platform: row.platform ?? null,
          decision: row.decision ?? null,
          outcome: row.outcome,
          detail: row.detail ?? null,
          at: sql`clock_timestamp()`,
        },
      })
    : insert.onConflictDoNothing({ target }));
}

/**
 * The audit's `requested` row of a new gate: who asked, where, why. Written with the gate, in its transaction (so
 * its `at` is the gate's `created_at`), under the key `requested:<interrupt>`: an opening run again for the same
 * gate adds no second row (decision_audit_event_idx).
 */
export async function auditRequest(db: Db, gate: GateRow): Promise<void> {
  await audit(db, {
    gateId: gate.id,
    outcome: 'requested',
    ...(gate.requester && { actor: gate.requester }),
    ...(gate.reason !== null && { detail: gate.reason }),
    eventKey: `requested:${gate.interruptId}`,
  });
}

/** Every recorded attempt on a gate (its `requested` row is not one), in the order they were settled. */
export async function auditOf(db: Db, gateId: string) {
  return db
    .select()
    .from(decisionAudit)
    .where(
      and(eq(decisionAudit.kind, 'gate'), eq(decisionAudit.subjectId, gateId), ne(decisionAudit.outcome, 'requested')),
    )
    .orderBy(decisionAudit.id);
}

export async function liveGrants(db: Db, chat: string | undefined, now: Date) {
  const conditions = [gt(approvalGrants.expiresAt, now), isNull(approvalGrants.revokedAt)];
  if (chat) conditions.push(eq(approvalGrants.chat, chat));
  return db
    .select()
    .from(approvalGrants)
    .where(and(...conditions))
    .orderBy(approvalGrants.createdAt);
}

/** Revokes a live grant; false when there was none with that id. */
export async function revokeGrant(db: Db, id: string): Promise<boolean> {
  const rows = await db
    .update(approvalGrants)
    .set({ revokedAt: sql`now()` })
    .where(and(eq(approvalGrants.id, id), isNull(approvalGrants.revokedAt)))
    .returning({ id: approvalGrants.id });
  return rows.length > 0;
}

/**
 * Heartbeat of a live resume: bumps `updated_at` while the gate is still in `state`, so sweeps in
 * other processes do not take it for abandoned. Not a state change (transitionGate owns those).
 */
export async function touchGate(db: Db, id: string, state: GateState): Promise<void> {
  await db
    .update(approvalGates)
    .set({ updatedAt: sql`now()` })
    .where(and(eq(approvalGates.id, id), eq(approvalGates.state, state)));
}

/**
 * Takes over a gate a dead process left behind. Inputs: the gate as a sweep saw it (state and
 * updated_at). Output: true for exactly one caller — the row must still be in that state, untouched
 * since, and older than `staleBefore`; the takeover itself bumps updated_at, so every other sweep's
 * compare-and-set fails.
 */
export async function takeOverGate(
  db: Db,
  seen: { id: string; state: GateState; updatedAt: Date },
  staleBefore: Date,
): Promise<boolean> {
  const rows = await db
    .update(approvalGates)
    .set({ updatedAt: sql`now()` })
    .where(
      and(
        eq(approvalGates.id, seen.id),
        eq(approvalGates.state, seen.state),
        // PostgreSQL keeps microseconds, a JS Date milliseconds: compare at the precision both have.
        sql`date_trunc('milliseconds', ${approvalGates.updatedAt}) = ${seen.updatedAt.toISOString()}::timestamptz`,
        lt(approvalGates.updatedAt, staleBefore),
      ),
    )
    .returning({ id: approvalGates.id });
  return rows.length === 1;
}
