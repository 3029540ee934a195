// The durable checkpointer across REAL process restarts, and its setup() as a migration step.
import { execFile } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { sql } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { checkpointerSetupStep, createCheckpointer } from '../../../src/core/agent/checkpoint/checkpointer.ts';
import { migrateDatabase, openDatabase, type Database } from '../../../src/core/db/index.ts';
import { createPgDatabase, freshDatabase, seedPgliteDataDir } from '../../helpers/databases.ts';
import { fixtureArgs } from '../../helpers/fixtures.ts';
import { REPO_ROOT } from '../../helpers/repo-root.ts';
import { selectRows } from './rows.ts';

const CHILD = fileURLToPath(new URL('./fixtures/restart-child.ts', import.meta.url));

interface ChildReport {
  pid: number;
  before: string[];
  after: string[];
}

/** Runs one child process to completion and returns what it printed. */
async function runProcess(
  target: { url?: string; dataDir?: string },
  thread: string,
  label: string,
): Promise<ChildReport> {
  const { stdout } = await promisify(execFile)(
    process.execPath,
    [...fixtureArgs(CHILD), JSON.stringify({ ...target, thread, label })],
    {
      cwd: REPO_ROOT,
      timeout: 60_000,
    },
  );
  return JSON.parse(stdout.trim().split('\n').at(-1)!) as ChildReport;
}

/** Two processes one after the other: the second sees exactly what the first wrote, and adds to it. */
async function expectStateSurvivesRestart(target: { url?: string; dataDir?: string }): Promise<void> {
  const first = await runProcess(target, 'chat-1', 'first');
  const second = await runProcess(target, 'chat-1', 'second');
  expect(first.before).toEqual([]);
  expect(first.after).toEqual(['first #0']);
  expect(second.pid).not.toBe(first.pid);
  expect(second.before).toEqual(['first #0']);
  expect(second.after).toEqual(['first #0', 'second #1']);
}

/** The versions setup() recorded; each exactly once when it ran to completion. */
async function setupVersions(database: Database): Promise<number[]> {
  const rows = await selectRows<{ v: number }>(
    database.db,
    sql`select v from langgraph.checkpoint_migrations order by v`,
  );
  return rows.map((row) => Number(row.v));
}

const ALL_VERSIONS = [0, 1, 2, 3, 4]; // @langchain/langgraph-checkpoint-postgres 1.0.5 has five migrations

describe('checkpointer state across process restarts', () => {
  it('real PostgreSQL: process 2 reads what process 1 wrote', async () => {
    const created = await createPgDatabase();
    try {
      await expectStateSurvivesRestart({ url: created.url });
    } finally {
      await created.drop();
    }
  });

  it('PGlite data directory: process 2 reads what process 1 wrote (one process at a time, by the lock file)', async () => {
    const dataDir = await mkdtemp(join(tmpdir(), 'kazma-ckpt-'));
    await seedPgliteDataDir(dataDir);
    try {
      await expectStateSurvivesRestart({ dataDir });
    } finally {
      await rm(dataDir, { recursive: true, force: true });
    }
  });
});

describe('checkpointerSetupStep in migrateDatabase', () => {
  it('is idempotent: migrating twice on PGlite leaves one set of tables and versions', async () => {
    const database = await freshDatabase('pglite'); // already migrated with the step once
    try {
      await migrateDatabase(database, [checkpointerSetupStep]);
      await migrateDatabase(database, [checkpointerSetupStep]);
      expect(await setupVersions(database)).toEqual(ALL_VERSIONS);
    } finally {
      await database.dispose();
    }
  });

  it('is idempotent on PostgreSQL, and createCheckpointer refuses a database where it never ran', async () => {
    const created = await createPgDatabase();
    const database = await openDatabase({ url: created.url, poolSize: 2 });
    try {
      await migrateDatabase(database, []);
      await expect(createCheckpointer(database)).rejects.toMatchObject({ code: 'checkpointer_not_set_up' });
      await migrateDatabase(database, [checkpointerSetupStep]);
      await migrateDatabase(database, [checkpointerSetupStep]);
      expect(await setupVersions(database)).toEqual(ALL_VERSIONS);
      await (await createCheckpointer(database)).close();
    } finally {
      await database.close();
      await created.drop();
    }
  });

  // setup() alone is not concurrency-safe: 4 bare concurrent setup() calls here failed 3 times (duplicate keys in
  // checkpoint_migrations, pg_type). The migration's advisory lock is what makes this pass.
  it('four Kazma instances (own pools, own sessions) migrating one fresh PostgreSQL database at once all succeed', async () => {
    const created = await createPgDatabase();
    const handles = await Promise.all(Array.from({ length: 4 }, () => openDatabase({ url: created.url, poolSize: 2 })));
    try {
      const outcomes = await Promise.allSettled(
        handles.map((handle) => migrateDatabase(handle, [checkpointerSetupStep])),
      );
      expect(outcomes.map((outcome) => outcome.status)).toEqual(['fulfilled', 'fulfilled', 'fulfilled', 'fulfilled']);
      expect(await setupVersions(handles[0]!)).toEqual(ALL_VERSIONS);
    } finally {
      await Promise.all(handles.map((handle) => handle.close()));
      await created.drop();
    }
  });
});
