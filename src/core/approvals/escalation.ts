// Escalation: a question under a policy with `escalate_after` that has not reached its quorum by then is also asked
// of `escalate_to` (people or chats), once, and its cards say so. The timer is a delayed job (BullMQ, in Redis, taken
// by whichever process is alive); the sweep escalates any that Redis forgot. Either way the gate row decides: one
// compare-and-set on `escalated_at` escalates a question once, however many jobs and sweeps reach it.
import { and, eq, isNotNull, isNull, sql } from 'drizzle-orm';
import { z } from 'zod';
import type { Clock } from '../clock.ts';
import { approvalGates, type Db } from '../db/index.ts';
import type { FirstDecisionWins } from '../decisions/index.ts';
import type { JobKind, JobQueue } from '../jobs/index.ts';
import type { Logger } from '../log/index.ts';
import type { ChatRef } from '../surface/index.ts';
import { gateCard } from './card.ts';
import { GATE_OWNER } from './gate-kind.ts';
import * as store from './gate-store.ts';
import { gateFromRow } from './gate-view.ts';
import type { Gate } from './port.ts';
import type { GateRow } from './transition.ts';

/** Options for {@link Escalations}. */
export interface EscalationsOptions {
  db: Db;
  decisions: FirstDecisionWins;
  jobs: JobQueue;
  /** An operator's private chat by their name (access.operators), or undefined when Kazma cannot write to them. */
  chatOf: (operator: string) => ChatRef | undefined;
  clock: Clock;
  secrets?: readonly string[];
  logger?: Logger;
}

/** The escalation timer of each question that has one, and the escalation itself. */
export class Escalations {
  readonly #o: EscalationsOptions;
  /** `approvals.escalate`: escalates one gate when its time comes (a no-op once decided or escalated). */
  readonly job: JobKind<{ gateId: string }>;

  constructor(options: EscalationsOptions) {
    this.#o = options;
    this.job = {
      name: 'approvals.escalate',
      lane: 'schedules',
      payload: z.object({ gateId: z.string().min(1) }),
      handle: ({ gateId }) => this.escalate(gateId),
      attempts: 5,
      backoffMs: 2_000,
    };
  }

  /** Arms a new question's timer, keyed by its gate (so a second arming is a no-op). */
  async schedule(gate: Gate): Promise<void> {
    const after = gate.policy?.escalateAfterMs;
    if (after === undefined || gate.policy!.escalateTo.length === 0) return;
    const delayMs = Math.max(0, gate.createdAt.getTime() + after - this.#o.clock.now().getTime());
    await this.#o.jobs.enqueue(this.job, { gateId: gate.gateId }, { jobId: `escalate-${gate.gateId}`, delayMs });
  }

  /**
   * Escalates a pending question whose time has come, once: `escalated_at` is set by compare-and-set (null → now,
   * while pending and due) in the transaction that writes the new cards; the winner then edits every card to say
   * so. False when it was decided, already escalated or not yet due.
   */
  async escalate(gateId: string): Promise<boolean> {
    const now = this.#o.clock.now();
    const posted = await this.#o.db.transaction(async (tx) => {
      const [row] = await tx
        .update(approvalGates)
        .set({ escalatedAt: now, updatedAt: sql`now()` })
        .where(and(eq(approvalGates.id, gateId), ...this.#due(now)))
        .returning();
      if (!row) return undefined;
      const targets = this.#targets(row);
      await store.audit(tx, { gateId, outcome: 'escalated', detail: `to ${row.policy!.escalateTo.join(', ')}` });
      return { row, ids: await this.#o.decisions.post(tx, this.#kind(), gateId, row, targets) };
    });
    if (!posted) return false;
    await this.#o.decisions.dispatch(posted.ids);
    await this.#o.decisions.editCards(this.#kind(), gateId, posted.row);
    return true;
  }

  /** The sweep's part: escalates every question whose time has passed (a timer Redis forgot); returns how many. */
  async overdue(): Promise<number> {
    const now = this.#o.clock.now();
    const rows = await this.#o.db
      .select({ id: approvalGates.id })
      .from(approvalGates)
      .where(and(...this.#due(now)));
    let done = 0;
    for (const { id } of rows) if (await this.escalate(id)) done++;
    return done;
  }

  /** Pending, under a policy that escalates, not yet escalated, and past `created_at + escalate_after`. */
  #due(now: Date) {
    const after = sql`((${approvalGates.policy} ->> 'escalateAfterMs')::bigint * interval '1 millisecond')`;
    return [
      eq(approvalGates.state, 'pending'),
      isNull(approvalGates.escalatedAt),
      isNotNull(sql`${approvalGates.policy} -> 'escalateAfterMs'`),
      sql`${approvalGates.createdAt} + ${after} <= ${now.toISOString()}::timestamptz`,
    ];
  }

  /** Operator names as their private chats, chats as they are; a name Kazma cannot write to is logged. */
  #targets(row: GateRow): ChatRef[] {
    return row.policy!.escalateTo.flatMap((target) => {
      if (/^[a-z]+:/.test(target)) return [target as ChatRef];
      const chat = this.#o.chatOf(target);
      if (!chat) this.#o.logger?.warn({ gate: row.id, operator: target }, 'no chat to escalate to this operator');
      return chat ? [chat] : [];
    });
  }

  #kind() {
    const { clock, secrets } = this.#o;
    return {
      owner: GATE_OWNER,
      card: (row: GateRow) => gateCard(gateFromRow(row), { now: clock.now(), ...(secrets && { secrets }) }),
    };
  }
}
