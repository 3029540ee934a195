import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import postgres from 'postgres';
import { afterAll, beforeAll, describe, inject } from 'vitest';
import { migrateDatabase, openDatabase, type Database, type MigrationStep } from '../../src/core/db/index.ts';
import { startPglite } from '../../src/core/db/pglite-open.ts';
import { buildPgliteTemplate, STANDARD_STEPS } from './pglite-template.ts';

/** The real PostgreSQL every storage test also runs on (CI starts it; see .ci/run). */
export const TEST_PG_ADMIN_URL = process.env.KAZMA_TEST_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
export const BACKENDS = ['pglite', 'postgres'] as const;
export type Backend = (typeof BACKENDS)[number];

/** The migrated, empty PGlite dump tests/helpers/global-setup.ts built for this run, if it ran (a bench: no). */
function templatePathOfRun(): string | undefined {
  try {
    return inject('pgliteTemplatePath');
  } catch {
    return undefined;
  }
}

let template: Promise<Blob> | undefined;

/**
 * The migrated, empty PGlite dump copies load from (~0.4 s instead of ~3 s): built once per run by
 * tests/helpers/global-setup.ts, or here when a file runs outside that setup.
 */
function pgliteTemplate(): Promise<Blob> {
  template ??= (async () => {
    const path = templatePathOfRun();
    return path ? new Blob([readFileSync(path)]) : buildPgliteTemplate();
  })();
  return template;
}

/**
 * Gives a Kazma process started on `dataDir` (its `data_dir`) the migrated, empty embedded database it
 * would make on its first start, as `<dataDir>/pglite`: the template's dump is a plain tar of the data
 * directory. That first start runs initdb in a child process (~4 s of CPU, 6–13 s on a loaded test run),
 * the same for every test; the tests whose subject is a first start (tests/foundation/start.test.ts) go
 * without.
 */
export async function seedPgliteDataDir(dataDir: string): Promise<void> {
  const target = join(dataDir, 'pglite');
  mkdirSync(target, { recursive: true });
  const ofRun = templatePathOfRun();
  const tar = ofRun ?? join(dataDir, 'template.tar');
  if (!ofRun) writeFileSync(tar, Buffer.from(await (await pgliteTemplate()).arrayBuffer()));
  try {
    await promisify(execFile)('tar', ['-xf', tar, '-C', target]);
  } finally {
    if (!ofRun) rmSync(tar, { force: true });
  }
}

/** Creates an empty PostgreSQL database and returns its URL; `drop()` removes it. */
export async function createPgDatabase(): Promise<{ url: string; drop: () => Promise<void> }> {
  const name = `kazma_t_${randomBytes(6).toString('hex')}`;
  const admin = postgres(TEST_PG_ADMIN_URL, { max: 1, onnotice: () => {} });
  await admin.unsafe(`create database ${name}`);
  await admin.end();
  const url = new URL(TEST_PG_ADMIN_URL);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    drop: async () => {
      const again = postgres(TEST_PG_ADMIN_URL, { max: 1, onnotice: () => {} });
      await again.unsafe(`drop database if exists ${name} with (force)`);
      await again.end();
    },
  };
}

export interface FreshDatabase extends Database {
  /** Closes the handle and removes the database. */
  dispose(): Promise<void>;
}

/**
 * A fresh, migrated database of the given kind, private to the caller: the SQL migrations, the standard
 * steps (the LangGraph checkpoint tables), then `extraSteps`.
 */
export async function freshDatabase(kind: Backend, extraSteps: MigrationStep[] = []): Promise<FreshDatabase> {
  const ownSteps = extraSteps.filter((step) => !STANDARD_STEPS.includes(step));
  if (kind === 'pglite') {
    // Started as Kazma starts its own (settings, WebAssembly tier): cheaper per copy, and what Kazma runs.
    const pglite = await startPglite({ loadDataDir: await pgliteTemplate() });
    const database = await openDatabase({ pglite });
    // The template is shared by every caller in this worker, so caller-specific steps run on the copy.
    if (ownSteps.length > 0) await migrateDatabase(database, ownSteps);
    return { ...database, dispose: () => database.close() };
  }
  const created = await createPgDatabase();
  const database = await openDatabase({ url: created.url, poolSize: 20 });
  await migrateDatabase(database, [...STANDARD_STEPS, ...ownSteps]);
  return {
    ...database,
    dispose: async () => {
      await database.close();
      await created.drop();
    },
  };
}

/**
 * Runs a suite once per storage backend, each with its own fresh database for the whole file.
 * Usage: `describeEachBackend('gates', (db) => { it('...', async () => { db().db.select()... }) })`.
 */
export function describeEachBackend(name: string, body: (db: () => FreshDatabase, kind: Backend) => void): void {
  for (const kind of BACKENDS) {
    describe(`${name} [${kind}]`, () => {
      let database: FreshDatabase | undefined;
      beforeAll(async () => {
        database = await freshDatabase(kind);
      });
      afterAll(async () => {
        await database?.dispose();
      });
      body(() => {
        if (!database) throw new Error('database not ready');
        return database;
      }, kind);
    });
  }
}
