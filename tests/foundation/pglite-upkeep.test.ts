// PGlite runs no autovacuum: without Kazma's own housekeeping, the old versions of every inbox and outbox
// row a turn moved stayed in the indexes for good, and the planner never had statistics. The test reads
// what a VACUUM (ANALYZE) leaves in the catalog: a table's row count (reltuples is -1 until one ran).
import { sql } from 'drizzle-orm';
import { afterEach, expect, it } from 'vitest';
import { openDatabase, type Database } from '../../src/core/db/index.ts';
import { startPgliteUpkeep } from '../../src/core/db/pglite-upkeep.ts';
import { freshDatabase, type FreshDatabase } from '../helpers/databases.ts';

const opened: Array<Database | FreshDatabase> = [];
afterEach(async () => {
  for (const d of opened.splice(0).reverse()) await d.close().catch(() => {});
});

/** The planner's row count of `table`: -1 until a VACUUM or ANALYZE counted it. */
async function rowEstimate(database: Database, table: string): Promise<number> {
  const result: unknown = await database.db.execute(
    sql`select reltuples::int as n from pg_class where relname = ${table} and relkind = 'r'`,
  );
  const rows = (Array.isArray(result) ? result : (result as { rows: unknown[] }).rows) as Array<{ n: number }>;
  return rows[0]!.n;
}

/** Records `n` messages in the inbox and moves each through received → running → done, as turns do. */
async function handleMessages(database: Database, n: number): Promise<void> {
  await database.db.execute(sql`insert into inbox (platform, event_id, chat, state, owner, event)
    select 'telegram', 'e' || g, 'telegram:' || (g % 7), 'received', 'me', '{}'::jsonb from generate_series(1, ${n}) g`);
  await database.db.execute(sql`update inbox set state = 'running', updated_at = now()`);
  await database.db.execute(sql`update inbox set state = 'done', updated_at = now(), finished_at = now()`);
}

async function pgliteWith(options: {
  upkeepIntervalMs?: number;
  onUpkeepError?: (error: unknown) => void;
}): Promise<Database> {
  const fresh = await freshDatabase('pglite');
  opened.push(fresh);
  const database = await openDatabase({ pglite: fresh.pglite!, ...options });
  opened.push(database);
  return database;
}

it('vacuums and analyses the embedded database on its interval', async () => {
  const database = await pgliteWith({ upkeepIntervalMs: 50 });
  await handleMessages(database, 300);
  await expect.poll(() => rowEstimate(database, 'inbox'), { timeout: 10_000, interval: 50 }).toBe(300);
});

it('with an interval of 0 it never runs: the table keeps no statistics', async () => {
  const database = await pgliteWith({ upkeepIntervalMs: 0 });
  await handleMessages(database, 300);
  expect(await rowEstimate(database, 'inbox')).toBe(-1);
});

it('stopping waits for a run under way (Database.close stops it first), and reports nothing', async () => {
  const failures: unknown[] = [];
  const database = await pgliteWith({ upkeepIntervalMs: 0, onUpkeepError: (error) => failures.push(error) });
  await handleMessages(database, 2_000);
  // The housekeeping on its own, over the same PGlite: stop() must not resolve before the run under way ends.
  const upkeep = startPgliteUpkeep(database.pglite!, { intervalMs: 0, onError: (error) => failures.push(error) });
  let ran = false;
  void upkeep.runNow().then(() => (ran = true));
  await upkeep.stop();
  expect(ran).toBe(true);
  expect(await rowEstimate(database, 'inbox')).toBe(2_000); // it ran to the end, not cut short
  await database.close();
  expect(database.pglite!.closed).toBe(true);
  expect(failures).toEqual([]);
});
