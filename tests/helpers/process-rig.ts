// The rig of the tests that run `kazma start` as a real process (the compiled bundle) and kill it: a fake
// model, a database (a fresh PostgreSQL one, or the embedded one seeded in data_dir), a kazma.yaml whose
// common lines point at them, followed by the test's own lines, and a `start()` that spawns Kazma on it.
// Every kill test built this by hand, the same way; kept here once, so a test reads as what it does to the
// process and what it expects, and a change to the rig (a new key every start needs) is made in one place.
// The platform fake stays with the test: it names the platform's lines and is pushed to the same cleanup.
import { join } from 'node:path';
import { afterEach } from 'vitest';
import { startFakeLlm } from '../fakes/llm-server.ts';
import { createPgDatabase, seedPgliteDataDir } from './databases.ts';
import { KazmaProcess, writeConfig } from './kazma-process.ts';

/** Steps run after each test, last pushed first: processes killed before the servers they talk to close. */
export type Cleanup = Array<() => Promise<unknown> | unknown>;

/** A cleanup list of the test file, run in reverse after each test. */
export function cleanupAfterEach(): Cleanup {
  const cleanup: Cleanup = [];
  afterEach(async () => {
    for (const step of cleanup.splice(0).reverse()) await step();
  });
  return cleanup;
}

interface RigOptions {
  /** Where kazma.yaml goes, made by the test when its lines name files in it (a workspace); else a new one. */
  dir?: string;
}

/**
 * Kazma on a fresh PostgreSQL database: the fake model and the database are pushed to `cleanup`, kazma.yaml
 * holds the common lines and then `lines`; each `start()` spawns `kazma start`, killed (SIGKILL) at cleanup.
 */
export async function kazmaOnPostgres(cleanup: Cleanup, lines: string, options: RigOptions = {}) {
  const llm = await startFakeLlm();
  const pg = await createPgDatabase();
  cleanup.push(
    () => llm.close(),
    () => pg.drop(),
  );
  const common = ['http: { port: 0 }', `database: { url: "${pg.url}" }`, modelLine(llm.baseURL)];
  const { dir, path } = writeConfig(yaml(common, lines), options.dir);
  const start = starter(cleanup, path, dir, { REDIS_URL: undefined });
  return { llm, pg, dir, start };
}

/**
 * Kazma on the embedded database, seeded as its first start would make it (see seedPgliteDataDir); the
 * rest as kazmaOnPostgres. DATABASE_URL is unset so a PostgreSQL named by the environment is not used.
 */
export async function kazmaOnEmbedded(cleanup: Cleanup, lines: string, options: RigOptions = {}) {
  const llm = await startFakeLlm();
  cleanup.push(() => llm.close());
  const { dir, path } = writeConfig(yaml(['http: { port: 0 }', modelLine(llm.baseURL)], lines), options.dir);
  await seedPgliteDataDir(join(dir, 'kazma-data'));
  const start = starter(cleanup, path, dir, { DATABASE_URL: undefined, REDIS_URL: undefined });
  return { llm, dir, start };
}

/** The fake model, no retries: a test's scripted answers are used once each. */
function modelLine(baseURL: string): string {
  return `model: { name: fake-model, base_url: "${baseURL}", max_retries: 0 }`;
}

function yaml(common: string[], lines: string): string {
  return `${[...common, lines.trim()].join('\n')}\n`;
}

/** Spawns `kazma start` on the config, killed at cleanup; `env` unsets what would point it elsewhere (REDIS_URL). */
function starter(cleanup: Cleanup, path: string, dir: string, env: Record<string, undefined>) {
  return (): KazmaProcess => {
    const kazma = new KazmaProcess(['start', '--config', path], { cwd: dir, env });
    cleanup.push(() => kazma.kill('SIGKILL'));
    return kazma;
  };
}
