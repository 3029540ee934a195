import { sql, type SQL } from 'drizzle-orm';
import { KazmaError } from '../errors.ts';
import { type Db, approvalGates, type GateState, type StoredActor } from '../db/index.ts';
import { compareAndSet } from '../decisions/index.ts';

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
  constructor(
    readonly from: GateState,
    readonly to: GateState,
  ) {
    super(
      'illegal_gate_transition',
      `A gate cannot move from ${from} to ${to}; legal from ${from}: ` +
        `${LEGAL_MOVES[from].join(', ') || 'none (final)'}.`,
    );
  }
}

/** The move happened (`gate` is the new row), or it did not and `gate` is the row as it really is. */
export type TransitionResult = { ok: true; gate: GateRow } | { ok: false; gate: GateRow | undefined };

/** The attempt a move records in decision_audit, kind `gate` (a decision: won, or lost with the state it found). */
export interface TransitionAudit {
  actor?: StoredActor;
  decision?: string;
  /** The winner's detail (a deny reason); a loser's detail is the state it found. */
  detail?: string;
  /** The inbound event the attempt came from: the same event run again records no second row. */
  eventKey?: string;
  /** A later round of one attempt: its row becomes this outcome whatever it is (compare-and-set.ts). */
  again?: boolean;
}

/**
 * Moves one gate from `from` to `to` by compare-and-set; nothing else writes the state column.
 *
 * Inputs: gate id, the state the caller believes it is in, the next state, other columns to set, and
 * optionally the attempt to audit (a decision) and a further condition the row must meet (a decision's:
 * not past its expiry).
 * Output: the updated row, or — when another decision won the race or the gate is gone — the row's
 * real state as the winner left it, so the loser can be told who decided and when.
 * Invariants: only LEGAL_MOVES; ONE statement (core/decisions/compare-and-set.ts): `UPDATE … WHERE id = $1
 * AND state = $from RETURNING *`, so under READ COMMITTED exactly one of any number of concurrent callers
 * sees `ok: true`; a loser's row is read in the same statement after the winner committed; with `audit`,
 * the attempt's decision_audit row (kind `gate`: won / lost / unknown_gate) is written by that same statement.
 */
export async function transitionGate(
  db: Db,
  move: { id: string; from: GateState; to: GateState; patch?: GatePatch; audit?: TransitionAudit; guard?: SQL },
): Promise<TransitionResult> {
  if (!LEGAL_MOVES[move.from].includes(move.to)) throw new IllegalTransitionError(move.from, move.to);
  const { won, row } = await compareAndSet(db, {
    table: approvalGates,
    idColumn: approvalGates.id,
    stateColumn: approvalGates.state,
    id: move.id,
    from: move.from,
    to: move.to,
    set: { ...move.patch, updatedAt: sql`now()` },
    ...(move.guard && { guard: move.guard }),
    ...(move.audit && {
      audit: {
        kind: 'gate',
        outcomes: { won: 'won', lost: 'lost', unknown: 'unknown_gate' },
        ...move.audit,
        ...(move.audit.actor && { platform: move.audit.actor.platform }),
      },
    }),
  });
  return won ? { ok: true, gate: row } : { ok: false, gate: row };
}

/**
 * Counts one approval of a gate that needs several (its policy's `approvals`), by compare-and-set.
 *
 * Inputs: the gate id, how many approvals the caller saw counted (`seen`), the list with this one appended, whether
 * it completes the quorum, the decision's columns (when it does) and the attempt's audit.
 * Output: as {@link transitionGate}: moved (the row after), or not and the row as it stands.
 * Invariants: ONE statement: `UPDATE … WHERE id AND state = 'pending' AND jsonb_array_length(approvals) = $seen`, so
 * of racing callers that saw the same count exactly one appends (approvals only ever grow, so a count names one
 * list); a loser reads the row as the winner left it and counts again from there. The last approval also moves the
 * gate pending → claimed, so the quorum is reached once and the call resumed by that caller alone. An approval that
 * is not the last leaves the state pending (the one move besides LEGAL_MOVES, and never any other state).
 */
export async function countApproval(
  db: Db,
  move: { id: string; seen: number; approvals: unknown[]; last: boolean; patch: GatePatch; audit: TransitionAudit },
  notExpired: SQL,
): Promise<TransitionResult> {
  const { won, row } = await compareAndSet(db, {
    table: approvalGates,
    idColumn: approvalGates.id,
    stateColumn: approvalGates.state,
    id: move.id,
    from: 'pending',
    to: move.last ? 'claimed' : 'pending',
    set: { ...(move.last && move.patch), approvals: move.approvals, updatedAt: sql`now()` },
    guard: sql`${notExpired} and jsonb_array_length(${approvalGates.approvals}) = ${sql.param(move.seen)}`,
    audit: {
      kind: 'gate',
      outcomes: { won: move.last ? 'won' : 'counted', lost: 'lost', unknown: 'unknown_gate' },
      ...move.audit,
      ...(move.audit.actor && { platform: move.audit.actor.platform }),
    },
  });
  return won ? { ok: true, gate: row } : { ok: false, gate: row };
}
