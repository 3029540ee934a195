// The one compare-and-set statement behind every decision (approval gates, incident and clarify
// questions) and every gate state change: the move, its audit row and — for whoever did not move it —
// the row as the winner left it, in a single round trip.
import { getTableColumns, getTableName, is, Placeholder, SQL, sql, type Column, type Query } from 'drizzle-orm';
import type { PgColumn, PgTable } from 'drizzle-orm/pg-core';
import { type Db, type DecisionAuditKind, decisionAudit, dialect, queryPrepared } from '../db/index.ts';
import { KazmaError } from '../errors.ts';

/** The attempt the statement records in the same round trip: one `decision_audit` row, whatever came of it. */
export interface CasAudit {
  /** What the moved row is (decision_audit.kind); its id is the audit row's subject_id. */
  kind: DecisionAuditKind;
  actor?: unknown;
  platform?: string;
  decision?: string;
  /** The winner's detail (e.g. a deny reason); a loser's detail is the state it found. */
  detail?: string;
  /** The inbound event the attempt came from: run again for the same event, it writes no second row. */
  eventKey?: string;
  /**
   * This is a later round of one attempt (a count lost to a race and tried again): its row from the earlier round
   * becomes this round's outcome whatever it is, so the row tells how the attempt ended, and when.
   */
  again?: boolean;
  /** Outcome words: won (this call moved the row), lost (it exists, another state), unknown (no such row). */
  outcomes: { won: string; lost: string; unknown: string };
}

/** What {@link compareAndSet} moves. `set` is keyed by the table's column names in TypeScript (camelCase). */
export interface CasMove<T extends PgTable> {
  table: T;
  idColumn: PgColumn;
  stateColumn: PgColumn;
  id: string;
  from: string;
  to: string;
  /** Other columns to set; a value may be SQL (e.g. sql`now()`). Never the state or the id. */
  set?: Record<string, unknown>;
  /** A further condition the row must meet to move (e.g. "the answer is one of its options"). */
  guard?: SQL;
  /** Records the attempt (won, lost or unknown) in the same statement. */
  audit?: CasAudit;
}

/**
 * `won`: this call moved the row and `row` is it after the move; else `row` is the row as it stands (undefined: none).
 */
export type CasResult<R> = { won: true; row: R } | { won: false; row: R | undefined };

/** A `set` key the table does not have (a bug in the caller). */
export class UnknownColumnError extends KazmaError {
  constructor(readonly column: string) {
    super(
      'cas_unknown_column',
      `compareAndSet was asked to set "${column}", which the table does not have; use the column's TypeScript name.`,
    );
  }
}

/**
 * Moves one row from `from` to `to` by compare-and-set, in ONE statement.
 *
 * Inputs: the table, its id and state columns, the row id, the expected and the next state, other
 * columns to set, an optional guard and an optional audit entry.
 * Output: `{ won: true, row }` with the row after the move, or `{ won: false, row }` with the row as the
 * winner left it (undefined when there is no such row) — so a loser can be told who decided, and when.
 * Invariants:
 *  - `UPDATE … WHERE id = $id AND state = $from [AND guard] RETURNING *`: under READ COMMITTED exactly
 *    one of any number of concurrent callers moves the row.
 *  - The loser's row is read only when the UPDATE moved nothing (the read depends on the UPDATE's
 *    result, so it runs after it). A plain read sees the statement's snapshot; when that still shows
 *    `from`, the snapshot was taken before a winner that committed while this UPDATE waited for the row
 *    lock ("pending, decided by nobody"), so the row is read again `FOR SHARE`, which waits for any
 *    writer and returns the newest committed version. Only those racing losers lock the row; a late
 *    loser (the usual one) reads it without a lock.
 *  - The audit row is written by the same statement (INSERT … SELECT from the UPDATE's result): exactly
 *    one row per attempt, `won` exactly once per move, never a move without its audit row or the reverse.
 *    An attempt whose event already has its row (the event run again) writes none, unless it won: then
 *    that row becomes its win (the first run was refused, say, and the access rules changed since); a later round
 *    of one attempt (`again`) makes the row its outcome whatever it is.
 *  - The audit row's id and `at` are drawn when the row is written, after the UPDATE got its answer: a loser,
 *    which waited for the winner to commit, always comes after the win it lost to; a row made another round's
 *    outcome takes that round's id and time.
 *  - The text depends only on the move's shape (which columns it sets, which SQL it carries, whether it
 *    audits), never on its values: drizzle builds it once per shape, and each connection prepares it once.
 */
export async function compareAndSet<T extends PgTable>(
  db: Db,
  move: CasMove<T>,
): Promise<CasResult<T['$inferSelect']>> {
  const columns = getTableColumns(move.table) as Record<string, Column>;
  const set = Object.entries(move.set ?? {}).map(([key, value]) => {
    const column = columns[key];
    if (!column || column.name === move.idColumn.name || column.name === move.stateColumn.name)
      throw new UnknownColumnError(key);
    return { key, column, value };
  });
  // SQL pieces (a set value such as now(), the guard) go into the text as they are; their own params, if
  // any, are taken from this call's pieces, in the order the text has them (set values, then the guard).
  const pieces = [...set.flatMap((s) => (is(s.value, SQL) ? [s.value] : [])), ...(move.guard ? [move.guard] : [])].map(
    (piece) => dialect.sqlToQuery(piece),
  );
  const audit = move.audit;
  const shape = [
    move.idColumn.name,
    move.stateColumn.name,
    ...set.map((s) => (is(s.value, SQL) ? `${s.key}=` : s.key)),
    ...pieces.map((p) => p.sql),
    audit ? getTableName(decisionAudit) : '',
  ].join('\u0000');
  const query = statementOf(move, set, shape);
  const values: Record<string, unknown> = {
    id: encode(move.idColumn, move.id),
    from: encode(move.stateColumn, move.from),
    to: encode(move.stateColumn, move.to),
  };
  for (const s of set) if (!is(s.value, SQL)) values[`set:${s.key}`] = encode(s.column, s.value);
  if (audit) {
    const t = decisionAudit;
    Object.assign(values, {
      'audit:kind': encode(t.kind, audit.kind),
      'audit:subject': encode(t.subjectId, move.id),
      'audit:actor': encode(t.actor, audit.actor),
      'audit:platform': encode(t.platform, audit.platform),
      'audit:decision': encode(t.decision, audit.decision),
      'audit:detail': encode(t.detail, audit.detail),
      'audit:event': encode(t.eventKey, audit.eventKey),
      'audit:won': audit.outcomes.won,
      'audit:lost': audit.outcomes.lost,
      'audit:unknown': audit.outcomes.unknown,
      'audit:again': audit.again === true,
    });
  }
  const pieceParams = pieces.flatMap((p) => p.params);
  const params = query.params.map((p) => (is(p, Placeholder) ? values[p.name] : pieceParams.shift()));
  const [raw] = await queryPrepared(db, { sql: query.sql, params });
  if (!raw) return { won: false, row: undefined };
  const row = fromDriver(columns, raw) as T['$inferSelect'];
  return raw.cas_won === true ? { won: true, row } : { won: false, row };
}

/** The statement of each shape of move, per table: built by drizzle once, its values placeholders. */
const statements = new WeakMap<PgTable, Map<string, Query>>();

function statementOf(
  move: CasMove<PgTable>,
  set: Array<{ column: Column; value: unknown; key: string }>,
  shape: string,
): Query {
  let byShape = statements.get(move.table);
  if (!byShape) statements.set(move.table, (byShape = new Map()));
  let query = byShape.get(shape);
  if (!query) byShape.set(shape, (query = dialect.sqlToQuery(statement(move, set))));
  return query;
}

const value = (name: string) => sql.placeholder(name);

function statement(move: CasMove<PgTable>, set: Array<{ column: Column; value: unknown; key: string }>): SQL {
  const assignments = set.map(
    (s) => sql`${sql.identifier(s.column.name)} = ${is(s.value, SQL) ? s.value : value(`set:${s.key}`)}`,
  );
  assignments.unshift(sql`${sql.identifier(move.stateColumn.name)} = ${value('to')}`);
  const id = sql`${move.idColumn} = ${value('id')}`;
  const condition = sql`${id} and ${move.stateColumn} =
    ${value('from')}${move.guard ? sql` and (${move.guard})` : sql``}`;
  return sql`
    with moved as (
      update ${move.table} set ${sql.join(assignments, sql`, `)} where ${condition} returning *
    ), seen as (
      select * from ${move.table} where ${id} and not exists (select 1 from moved)
    ), fresh as (
      select * from ${move.table} where ${id}
        and exists (select 1 from seen where seen.${sql.identifier(move.stateColumn.name)} = ${value('from')}) for share
    ), standing as (
      select * from fresh union all select * from seen where not exists (select 1 from fresh)
    )${move.audit ? sql`, audited as (${auditInsert(move.stateColumn)})` : sql``}
    select true as cas_won, moved.* from moved
    union all
    select false as cas_won, standing.* from standing`;
}

/**
 * INSERT … SELECT: won when `moved` has the row, lost when `standing` has it, unknown when neither. When the
 * attempt's event already has its row (the event run again), nothing — or, when this run won, that row is
 * made the win, so no move is ever without its `won` row; a later round of one attempt makes it its outcome.
 */
function auditInsert(state: PgColumn): SQL {
  const t = decisionAudit;
  const typed = (name: string, column: PgColumn) => sql`${value(`audit:${name}`)}::${sql.raw(column.getSQLType())}`;
  const names = [t.kind, t.subjectId, t.actor, t.platform, t.decision, t.outcome, t.detail, t.eventKey, t.at].map((c) =>
    sql.identifier(c.name),
  );
  const once = [t.kind, t.subjectId, t.eventKey].map((c) => sql.identifier(c.name));
  // The row takes the attempt's new id too (excluded.id, drawn for the row proposed now): ids follow the order in
  // which attempts were settled, which the audit trail pages and the export lists by.
  const winner = [t.id, t.actor, t.platform, t.decision, t.outcome, t.detail, t.at].map(
    (c) => sql`${sql.identifier(c.name)} = excluded.${sql.identifier(c.name)}`,
  );
  return sql`insert into ${t} (${sql.join(names, sql`, `)})
    select ${typed('kind', t.kind)}, ${typed('subject', t.subjectId)}, ${typed('actor', t.actor)},
      ${typed('platform', t.platform)}, ${typed('decision', t.decision)},
      case when exists (select 1 from moved) then ${value('audit:won')} when exists (select 1 from standing) then
        ${value('audit:lost')} else ${value('audit:unknown')} end,
      case when exists (select 1 from moved) then ${typed('detail', t.detail)} else (select
        standing.${sql.identifier(state.name)}::text from standing) end,
      ${typed('event', t.eventKey)}, clock_timestamp()
    on conflict (${sql.join(once, sql`, `)}) do update set ${sql.join(winner, sql`, `)}
      where excluded.${sql.identifier(t.outcome.name)} = ${value('audit:won')} or ${value('audit:again')}::boolean`;
}

/** A value as drizzle would send it for `column` (a NULL stays NULL, not the JSON text "null"). */
function encode(column: Column, v: unknown): unknown {
  return v === undefined || v === null ? null : column.mapToDriverValue(v);
}

/** A raw row (SQL column names, driver values) as drizzle's select would return it. */
function fromDriver(columns: Record<string, Column>, raw: Record<string, unknown>): Record<string, unknown> {
  const row: Record<string, unknown> = {};
  for (const [key, column] of Object.entries(columns)) {
    const value = raw[column.name];
    row[key] = value === null || value === undefined ? null : column.mapFromDriverValue(value);
  }
  return row;
}
