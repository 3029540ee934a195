import { sql } from 'drizzle-orm';
import { expect, it } from 'vitest';
import { migrateDatabase, schema } from '../../src/core/db/index.ts';
import { describeEachBackend } from '../helpers/databases.ts';

/** Rows of a raw query, whichever driver answered (PGlite returns {rows}, postgres.js an array). */
function rowsOf(result: unknown): Array<Record<string, unknown>> {
  return Array.isArray(result) ? result : (result as { rows: Array<Record<string, unknown>> }).rows;
}

describeEachBackend('migrations', (db) => {
  it('apply cleanly to an empty database and create every table', async () => {
    const tables = rowsOf(
      await db().db.execute(
        sql`select table_name from information_schema.tables where table_schema = 'public' order by 1`,
      ),
    );
    const names = tables.map((t) => t.table_name);
    expect(names).toEqual(expect.arrayContaining(['settings', 'effect_receipts']));
  });

  it('are idempotent: a second run applies nothing', async () => {
    const before = rowsOf(await db().db.execute(sql`select count(*)::int as n from drizzle.__drizzle_migrations`))[0]!
      .n;
    await migrateDatabase(db());
    await migrateDatabase(db());
    const after = rowsOf(await db().db.execute(sql`select count(*)::int as n from drizzle.__drizzle_migrations`))[0]!.n;
    expect(after).toBe(before);
    expect(Number(before)).toBeGreaterThan(0);
  });

  it('store and read back a settings row with JSON, Arabic and emoji intact', async () => {
    const value = { greeting: 'مَرْحَبًا بِكُمْ 👋🏽', enabled: true };
    await db().db.insert(schema.settings).values({ key: 'tools.greeting', value, updatedBy: 'maya' });
    const [row] = await db().db.select().from(schema.settings);
    expect(row?.value).toEqual(value);
    expect(row?.updatedAt).toBeInstanceOf(Date);
  });
});
