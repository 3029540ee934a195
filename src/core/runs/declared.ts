// Every table with a status column is long work someone must watch, or says why not. The declared-
// kinds test fails on a table that is neither, so a new kind of work cannot be added unwatched.
import { sql } from 'drizzle-orm';
import { type Db, rowsOf } from '../db/index.ts';

/** Tables with a status column the supervisor does not watch, each with the reason. */
export const EXEMPT_STATUS_TABLES: Readonly<Record<string, string>> = {
  decision_questions:
    'the cards of incidents and clarify questions: an open one waits for a person, and an incident question is ' +
    'closed with its incident',
  run_incidents: "the supervisor's own record of what it found",
  effect_receipts:
    'one tool call inside a turn or a task: the turn or task is what is watched, and a started receipt is reported ' +
    'as "effect unknown" when it resumes',
};

/** Tables of the application's schema that have a `state` or `status` column. */
export async function statusTables(db: Db): Promise<string[]> {
  const rows = await db.execute<{ table_name: string }>(sql`
    select distinct table_name from information_schema.columns
    where table_schema = current_schema() and column_name in ('state', 'status') order by table_name`);
  return rowsOf<{ table_name: string }>(rows).map((r) => r.table_name);
}

/** The status tables that are neither watched nor declared exempt. */
export function undeclaredStatusTables(tables: readonly string[], watched: Iterable<string>): string[] {
  const known = new Set([...watched, ...Object.keys(EXEMPT_STATUS_TABLES)]);
  return tables.filter((table) => !known.has(table));
}
