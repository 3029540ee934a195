import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'drizzle-orm';
import { migrate as migratePglite } from 'drizzle-orm/pglite/migrator';
import { migrate as migratePostgres } from 'drizzle-orm/postgres-js/migrator';
import { afterEach, describe, expect, it } from 'vitest';
import { type Database, migrateDatabase, openDatabase, schema } from '../../src/core/db/index.ts';
import { MIGRATIONS_FOLDER } from '../../src/core/db/migrate.ts';
import { startPglite } from '../../src/core/db/pglite-open.ts';
import { BACKENDS, type Backend, createPgDatabase, describeEachBackend } from '../helpers/databases.ts';

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
    expect(names).toEqual(expect.arrayContaining(['settings', 'effect_receipts', 'memories']));
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

/** An empty database of `backend`, and how to be rid of it. */
async function emptyDatabase(backend: Backend): Promise<{ database: Database; dispose: () => Promise<void> }> {
  if (backend === 'pglite') {
    const database = await openDatabase({ pglite: await startPglite({}) });
    return { database, dispose: () => database.close() };
  }
  const created = await createPgDatabase();
  const database = await openDatabase({ url: created.url, poolSize: 2 });
  return {
    database,
    dispose: async () => {
      await database.close();
      await created.drop();
    },
  };
}

/** Applies the migrations up to and including `lastTag` only, as a Kazma of that time would have. */
async function migrateUpTo(database: Database, lastTag: string): Promise<void> {
  const folder = mkdtempSync(join(tmpdir(), 'kazma-migrations-'));
  try {
    cpSync(MIGRATIONS_FOLDER, folder, { recursive: true });
    const path = join(folder, 'meta', '_journal.json');
    const journal = JSON.parse(readFileSync(path, 'utf8')) as { entries: Array<{ tag: string }> };
    const last = journal.entries.findIndex((e) => e.tag === lastTag);
    expect(last).toBeGreaterThanOrEqual(0);
    writeFileSync(path, JSON.stringify({ ...journal, entries: journal.entries.slice(0, last + 1) }));
    if (database.kind === 'pglite') await migratePglite(database.db as never, { migrationsFolder: folder });
    else await migratePostgres(database.db as never, { migrationsFolder: folder });
  } finally {
    rmSync(folder, { recursive: true, force: true });
  }
}

/** An audit row as text (the time to the microsecond, in UTC), whichever table and driver it came from. */
const AUDIT_COLUMNS = sql.raw(
  `actor::text as actor, platform, decision, outcome, detail, ` +
    `to_char(at at time zone 'UTC', 'YYYY-MM-DD HH24:MI:SS.US') as at`,
);

for (const backend of BACKENDS) {
  describe(`0021_decision_audit: one audit table for gates and questions [${backend}]`, () => {
    let dispose: (() => Promise<void>) | undefined;
    afterEach(async () => {
      await dispose?.();
      dispose = undefined;
    });

    it('copies every row of approval_audit and question_audit, in order, then drops both', async () => {
      const opened = await emptyDatabase(backend);
      dispose = opened.dispose;
      const { db } = opened.database;
      await migrateUpTo(opened.database, '0020_command_effects');

      // Attempts as Kazma wrote them before 0021; a gate's rows interleave with another gate's.
      const maya = `'{"platform":"telegram","id":"42","operator":"maya"}'::jsonb`;
      const ana = `'{"platform":"slack","id":"U1","operator":"ana"}'::jsonb`;
      await db.execute(
        sql.raw(`insert into approval_audit (gate_id, actor, platform, decision, outcome, detail, at) values
          ('gt_a', ${maya}, 'telegram', 'once', 'won', null, '2026-11-01 10:00:00.000001+00'),
          ('gt_b', null, null, null, 'expired', 'nobody decided', '2026-11-01 10:00:01+00'),
          ('gt_a', ${ana}, 'slack', 'deny', 'lost', 'claimed', '2026-11-01 10:00:00.5+00'),
          ('gt_a', ${ana}, 'slack', 'always', 'refused', 'ana is not in approvals.approvers', '2026-11-01 10:00:02+00'),
          ('gt_none', ${maya}, 'telegram', 'once', 'unknown_gate', null, '2026-11-01 10:00:03+00')`),
      );
      await db.execute(
        sql.raw(`insert into question_audit (question_id, actor, platform, decision, outcome, detail, at) values
          ('q1', ${ana}, 'slack', 'retry', 'won', null, '2026-11-01 09:00:00+00'),
          ('q1', ${maya}, 'telegram', 'cancel', 'lost', 'decided', '2026-11-01 09:00:00+00'),
          ('q2', ${maya}, 'telegram', 'explode', 'lost', 'open', '2026-11-01 09:30:00+00')`),
      );
      const before = {
        gate: rowsOf(
          await db.execute(sql`select gate_id as subject_id, ${AUDIT_COLUMNS} from approval_audit order by id`),
        ),
        question: rowsOf(
          await db.execute(sql`select question_id as subject_id, ${AUDIT_COLUMNS} from question_audit order by id`),
        ),
      };
      expect(before.gate).toHaveLength(5);
      expect(before.question).toHaveLength(3);

      await migrateDatabase(opened.database);

      const after = rowsOf(
        await db.execute(sql`select kind, subject_id, ${AUDIT_COLUMNS} from decision_audit order by id`),
      );
      expect(after).toEqual([
        ...before.gate.map((row) => ({ kind: 'gate', ...row })),
        ...before.question.map((row) => ({ kind: 'question', ...row })),
      ]);
      // A gate's attempts keep their order (the audit is read by id), as the old table had them.
      expect(after.filter((r) => r.subject_id === 'gt_a').map((r) => r.outcome)).toEqual(['won', 'lost', 'refused']);

      const left = rowsOf(
        await db.execute(
          sql`select table_name from information_schema.tables where table_schema = 'public'
            and table_name in ('approval_audit', 'question_audit', 'decision_audit') order by 1`,
        ),
      );
      expect(left.map((t) => t.table_name)).toEqual(['decision_audit']);

      // New attempts number on after the copied ones, and the kind is checked.
      const [added] = await db
        .insert(schema.decisionAudit)
        .values({ kind: 'gate', subjectId: 'gt_c', outcome: 'won' })
        .returning();
      expect(added!.id).toBe(9);
      await expect(
        db.execute(sql`insert into decision_audit (kind, subject_id, outcome) values ('task', 't1', 'won')`),
      ).rejects.toThrow();
    });
  });
}

for (const backend of BACKENDS) {
  describe(`0035_forgotten_terms: a forgotten note keeps no word forms [${backend}]`, () => {
    let dispose: (() => Promise<void>) | undefined;
    afterEach(async () => {
      await dispose?.();
      dispose = undefined;
    });

    it('clears the word forms of notes forgotten before it, and only theirs', async () => {
      const opened = await emptyDatabase(backend);
      dispose = opened.dispose;
      const { db } = opened.database;
      await migrateUpTo(opened.database, '0034_memory_gin_fastupdate');
      // As Kazma forgot a note between 0033 and 0035: text cleared, word forms left.
      await db.execute(
        sql.raw(`insert into memories (id, owner, text, text_hash, source, forgotten_at, terms) values
          ('m_gone', 'person:maya', '', 'h1', 'stated', now(), to_tsvector('simple', 'palm street')),
          ('m_kept', 'person:maya', 'palm street', 'h2', 'stated', null, to_tsvector('simple', 'palm street'))`),
      );
      await migrateDatabase(opened.database);
      const rows = rowsOf(await db.execute(sql`select id, terms::text as terms from memories order by id`));
      expect(rows).toEqual([
        { id: 'm_gone', terms: null },
        { id: 'm_kept', terms: "'palm':1 'street':2" },
      ]);
    });
  });
}
