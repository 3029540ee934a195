// Moving Kazma's data from one database to another (`kazma migrate-data`: the embedded PGlite to a
// PostgreSQL server). Both are migrated first, so their tables are the same; every row then goes through
// PostgreSQL's own JSON form (`row_to_json` on one side, `json_populate_recordset` on the other), so each
// type — jsonb, bytea, arrays, timestamps — is carried by the database's own casts, not re-typed here.
import { sql } from 'drizzle-orm';
import { KazmaError } from '../errors.ts';
import type { Database } from './client.ts';
import { rowsOf } from './prepared.ts';

/** Schemas whose tables are Kazma's data (the application's and the LangGraph checkpointer's). */
export const DATA_SCHEMAS = ['public', 'langgraph'] as const;
/** Bookkeeping both sides already have from being migrated: never copied. */
const SKIPPED = new Set(['langgraph.checkpoint_migrations']);
/** Rows per statement: a checkpoint blob can be large, so batches stay small. */
const BATCH = 200;

/** A table to copy, and the columns that take a value (generated ones are computed again on arrival). */
export interface CopiedTable {
  name: string;
  rows: number;
}

/** The target already holds data: copying would mix two Kazmas. */
export class TargetNotEmptyError extends KazmaError {
  constructor(readonly table: string) {
    super('copy_target_not_empty', `the target database already has rows in ${table}: use an empty database`);
  }
}

const quoted = (name: string) =>
  name
    .split('.')
    .map((part) => `"${part.replaceAll('"', '""')}"`)
    .join('.');

/** The data tables of `database`, parents before the tables whose foreign keys point at them. */
async function tablesOf(database: Database): Promise<string[]> {
  const schemas = sql.join(
    DATA_SCHEMAS.map((s) => sql`${s}`),
    sql`, `,
  );
  const tables = rowsOf(
    await database.db.execute(sql`select table_schema || '.' || table_name as name from information_schema.tables
      where table_type = 'BASE TABLE' and table_schema in (${schemas}) order by 1`),
  ).map((r) => String(r.name));
  const edges = rowsOf(
    await database.db.execute(sql`select c.conrelid::regclass::text as child, c.confrelid::regclass::text as parent
      from pg_constraint c where c.contype = 'f'`),
  ).map((r) => ({ child: qualified(String(r.child)), parent: qualified(String(r.parent)) }));
  const ordered: string[] = [];
  const visit = (table: string, path: Set<string>) => {
    if (ordered.includes(table) || path.has(table)) return;
    path.add(table);
    for (const edge of edges) if (edge.child === table && edge.parent !== table) visit(edge.parent, path);
    ordered.push(table);
  };
  for (const table of tables) visit(table, new Set());
  return ordered.filter((table) => tables.includes(table) && !SKIPPED.has(table));
}

/** `regclass::text` leaves `public.` off (it is on the search path). */
const qualified = (name: string) => (name.includes('.') ? name.replaceAll('"', '') : `public.${name}`);

/** The columns of `table` that take a value on insert (not generated). */
async function writableColumns(database: Database, table: string): Promise<string[]> {
  const [schema, name] = table.split('.') as [string, string];
  return rowsOf(
    await database.db.execute(sql`select column_name from information_schema.columns
      where table_schema = ${schema} and table_name = ${name} and is_generated = 'NEVER' order by ordinal_position`),
  ).map((r) => String(r.column_name));
}

/**
 * Copies every data row of `from` into `to` (both migrated, `to` empty), then moves each sequence on `to`
 * past the highest id copied. `progress` hears each table when done. Throws {@link TargetNotEmptyError}
 * before writing anything when `to` holds rows.
 */
export async function copyDatabase(
  from: Database,
  to: Database,
  progress: (table: CopiedTable) => void = () => {},
): Promise<CopiedTable[]> {
  const tables = await tablesOf(from);
  for (const table of tables) {
    const [found] = rowsOf(await to.db.execute(sql.raw(`select 1 as found from ${quoted(table)} limit 1`)));
    if (found) throw new TargetNotEmptyError(table);
  }
  const copied: CopiedTable[] = [];
  for (const table of tables) {
    const columns = (await writableColumns(to, table)).map(quoted).join(', ');
    let rows = 0;
    for (;;) {
      // ctid: the rows' physical order, stable while nothing writes (the source is stopped: its lock is held).
      const [batch] = rowsOf(
        await from.db.execute(
          sql.raw(`select coalesce(json_agg(t), '[]')::text as rows, count(*)::int as n from
            (select * from ${quoted(table)} order by ctid limit ${BATCH} offset ${rows}) t`),
        ),
      );
      const n = Number(batch?.n ?? 0);
      if (n === 0) break;
      const into =
        `insert into ${quoted(table)} (${columns}) ` +
        `select ${columns} from json_populate_recordset(null::${quoted(table)}, `;
      await to.db.execute(sql`${sql.raw(into)}${String(batch!.rows)}::json)`);
      rows += n;
    }
    await resetSequences(to, table);
    copied.push({ name: table, rows });
    progress({ name: table, rows });
  }
  return copied;
}

/** Each sequence a column of `table` owns continues after the highest value copied. */
async function resetSequences(database: Database, table: string): Promise<void> {
  const [schema, name] = table.split('.') as [string, string];
  const owned = rowsOf(
    await database.db.execute(sql`select column_name, pg_get_serial_sequence(${table}, column_name) as seq
      from information_schema.columns where table_schema = ${schema} and table_name = ${name}`),
  ).filter((r) => r.seq);
  for (const { column_name, seq } of owned) {
    const column = quoted(String(column_name));
    await database.db.execute(
      sql.raw(`select setval('${String(seq)}', coalesce((select max(${column}) from ${quoted(table)}), 1),
        (select max(${column}) from ${quoted(table)}) is not null)`),
    );
  }
}
