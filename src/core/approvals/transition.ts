import { and, eq, sql } from 'drizzle-orm';
import { KazmaError } from '../errors.ts';
import type { Db } from '../db/index.ts';
import { approvalGates, type GateState } from '../db/schema/approvals.ts';

export type GateRow = typeof approvalGates.$inferSelect;
/** Columns a transition may set besides the state (never `state` itself, never the id). */
export type GatePatch = Partial<Omit<typeof approvalGates.$inferInsert, 'id' | 'state' | 'updatedAt'>>;

/** The only moves the gate state machine allows. */
export const LEGAL_MOVES: Readonly<Record<GateState, readonly GateState[]>> = {
  pending: ['claimed', 'timeout', 'superseded'],
  claimed: ['resuming', 'error'],
  resuming: ['settled', 'error'],
  settled: [],
  timeout: [],
  superseded: [],
  error: [],
};

/** A move the state machine does not have (a bug in the caller, not a lost race). */
export class IllegalTransitionError extends KazmaError {
  constructor(readonly from: GateState, readonly to: GateState) {
    super('illegal_gate_transition', `A gate cannot move from ${from} to ${to}; legal from ${from}: ${LEGAL_MOVES[from].join(', ') || 'none (final)'}.`);
  }
}

/** The move happened (`gate` is the new row), or it did not and `gate` is the row as it really is. */
export type TransitionResult = { ok: true; gate: GateRow } | { ok: false; gate: GateRow | undefined };

/**
 * Moves one gate from `from` to `to` by compare-and-set; nothing else writes the state column.
 *
 * Inputs: gate id, the state the caller believes it is in, the next state, other columns to set.
 * Output: the updated row, or — when another decision won the race or the gate is gone — the row's
 * real state, so the loser can be told who decided and when.
 * Invariants: only LEGAL_MOVES; one `UPDATE … WHERE id = $1 AND state = $from RETURNING *`, so under
 * READ COMMITTED exactly one of any number of concurrent callers sees `ok: true`.
 */
export async function transitionGate(
  db: Db,
  move: { id: string; from: GateState; to: GateState; patch?: GatePatch },
): Promise<TransitionResult> {
  if (!LEGAL_MOVES[move.from].includes(move.to)) throw new IllegalTransitionError(move.from, move.to);
  const [updated] = await db
    .update(approvalGates)
    .set({ ...move.patch, state: move.to, updatedAt: sql`now()` })
    .where(and(eq(approvalGates.id, move.id), eq(approvalGates.state, move.from)))
    .returning();
  if (updated) return { ok: true, gate: updated };
  const [current] = await db.select().from(approvalGates).where(eq(approvalGates.id, move.id));
  return { ok: false, gate: current };
}
