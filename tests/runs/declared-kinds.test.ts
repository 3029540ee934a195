// Every table with a status column is long work: the run supervisor watches it, or it is declared
// exempt with a written reason. A new table with a status column and no declaration fails this test.
import { sql } from 'drizzle-orm';
import { afterEach, describe, expect, it } from 'vitest';
import { EXEMPT_STATUS_TABLES, statusTables, undeclaredStatusTables } from '../../src/core/runs/declared.ts';
import { startAssembled, type Assembled } from '../helpers/assembled.ts';
import { BACKENDS, freshDatabase } from '../helpers/databases.ts';

let k: Assembled | undefined;
afterEach(async () => {
  await k?.close();
  k = undefined;
});

describe.each(BACKENDS)('declared kinds of work [%s]', (backend) => {
  it('every table with a status column is watched by the supervisor or exempt with a reason', async () => {
    const database = await freshDatabase(backend);
    try {
      k = await startAssembled({}, { database });
      const tables = await statusTables(database.db);
      // The check sees the tables we know are there (it is not vacuously empty).
      expect(tables).toEqual(
        expect.arrayContaining(['tasks', 'outbox', 'approval_gates', 'inbox', 'schedules', 'decision_questions']),
      );
      expect(undeclaredStatusTables(tables, k.kazma.core.supervisor.watchedTables())).toEqual([]);
      for (const reason of Object.values(EXEMPT_STATUS_TABLES)) expect(reason.length).toBeGreaterThan(20);
      // No table is both watched and exempt.
      expect(k.kazma.core.supervisor.watchedTables().filter((t) => t in EXEMPT_STATUS_TABLES)).toEqual([]);

      // Negative control: a new kind of work nobody declared.
      await database.db.execute(sql`create table widgets_in_flight (id text primary key, status text not null)`);
      expect(undeclaredStatusTables(await statusTables(database.db), k.kazma.core.supervisor.watchedTables())).toEqual([
        'widgets_in_flight',
      ]);
    } finally {
      await k?.close();
      k = undefined;
      await database.dispose();
    }
  }, 60_000);
});
