// The compiled build: `npm run build` bundles src/ into dist/ and the compiled CLI runs from it, finding
// Kazma’s folder (package.json, migrations/) from the bundle’s chunks as it does from src/. A broken build,
// an import left with a .ts extension, or an asset path that only works from src/ fails here.
// The builds here are made in a copy of Kazma's folder: the repository's own dist/ is what every other
// test's `kazma` process runs (tests/helpers/global-setup.ts builds it), and five rebuilds in a row would
// take away the chunks of a process started from it.
import { execFile } from 'node:child_process';
import {
  cpSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import postgres from 'postgres';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { distState } from '../../bin/dist-state.js';
import { findPackageRoot } from '../../src/core/package-root.ts';
import { createPgDatabase } from '../helpers/databases.ts';
import { writeConfig } from '../helpers/kazma-process.ts';
import { REPO_ROOT } from '../helpers/repo-root.ts';

const run = promisify(execFile);

/** A copy of what `npm run build` reads and a compiled Kazma needs, sharing the repository's node_modules. */
function kazmaCopy(): string {
  const root = mkdtempSync(join(tmpdir(), 'kazma-build-'));
  for (const entry of ['package.json', 'tsconfig.json', 'bin', 'src', 'migrations']) {
    cpSync(join(REPO_ROOT, entry), join(root, entry), { recursive: true });
  }
  symlinkSync(join(REPO_ROOT, 'node_modules'), join(root, 'node_modules'));
  return root;
}
let COPY = '';
let DIST_CLI = '';
beforeAll(() => {
  COPY = kazmaCopy();
  DIST_CLI = join(COPY, 'dist/cli/index.js');
});
// Four builds of ~12 MB each: not left behind in the temp folder run after run.
afterAll(() => rmSync(COPY, { recursive: true, force: true }));

/** Runs the compiled CLI itself (not bin/kazma.js, which falls back to tsx when dist/ is stale). */
async function compiled(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await run(process.execPath, [DIST_CLI, ...args], {
      cwd: COPY,
      env: { ...process.env, DATABASE_URL: '', REDIS_URL: '' },
    });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const failed = error as { code: number; stdout: string; stderr: string };
    return { code: failed.code, stdout: failed.stdout, stderr: failed.stderr };
  }
}

function jsFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? jsFiles(join(dir, e.name)) : e.name.endsWith('.js') ? [join(dir, e.name)] : [],
  );
}

describe('npm run build', () => {
  it('compiles src/ to dist/, and the compiled CLI prints its version, checks a config and migrates PostgreSQL', {
    timeout: 300_000,
  }, async () => {
    const build = await run(process.execPath, ['bin/build.js'], { cwd: COPY });
    expect(build.stderr).toBe('');

    // Every relative import was rewritten to .js: Node cannot load a .ts file without tsx.
    const leftovers = jsFiles(join(COPY, 'dist')).filter((file) =>
      /(?:from |import\()\s*["']\.{1,2}\/[^"']*\.ts["']/.test(readFileSync(file, 'utf8')),
    );
    expect(leftovers).toEqual([]);

    const version = JSON.parse(readFileSync(join(COPY, 'package.json'), 'utf8')).version as string;
    expect(await compiled(['--version'])).toMatchObject({ code: 0, stdout: `kazma ${version}\n` });

    const { path } = writeConfig('http: { port: 0 }\n');
    expect(await compiled(['config', 'check', '--config', path])).toMatchObject({ code: 0, stderr: '' });

    // migrations/ is found from dist/: every migration in the journal is applied.
    const pg = await createPgDatabase();
    try {
      const { path: pgConfig } = writeConfig(`database: { url: "${pg.url}" }\n`);
      const migrated = await compiled(['migrate', '--config', pgConfig]);
      expect(migrated.stderr).toBe('');
      expect(migrated.code).toBe(0);
      const journal = JSON.parse(readFileSync(join(COPY, 'migrations/meta/_journal.json'), 'utf8')) as {
        entries: unknown[];
      };
      const sql = postgres(pg.url, { max: 1, onnotice: () => {} });
      try {
        const [row] = await sql<{ n: number }[]>`select count(*)::int as n from drizzle.__drizzle_migrations`;
        expect(row!.n).toBe(journal.entries.length);
      } finally {
        await sql.end();
      }
    } finally {
      await pg.drop();
    }
  });
});

describe('the bundle’s builds', () => {
  it('a rebuild keeps the two builds before it, so a process started from one still finds its chunks', {
    timeout: 300_000,
  }, async () => {
    const current = () => /builds\/([^/]+)\/index\.js/.exec(readFileSync(DIST_CLI, 'utf8'))![1]!;
    const builds = () => readdirSync(join(COPY, 'dist/builds')).sort();
    await run(process.execPath, ['bin/build.js'], { cwd: COPY });
    const first = current();
    const firstChunks = readdirSync(join(COPY, 'dist/builds', first, 'chunks'));
    expect(firstChunks.length).toBeGreaterThan(1);
    await run(process.execPath, ['bin/build.js'], { cwd: COPY });
    expect(current()).not.toBe(first);
    expect(readdirSync(join(COPY, 'dist/builds', first, 'chunks'))).toEqual(firstChunks);
    await run(process.execPath, ['bin/build.js'], { cwd: COPY });
    await run(process.execPath, ['bin/build.js'], { cwd: COPY });
    expect(builds()).toHaveLength(3);
    expect(builds()).not.toContain(first);
    expect(builds().at(-1)).toBe(current());
    expect(await compiled(['--version'])).toMatchObject({ code: 0 });
  });

  it('finds Kazma’s own folder from any depth below it, and says so when there is none', () => {
    expect(findPackageRoot(join(REPO_ROOT, 'dist/builds/x/chunks'))).toBe(REPO_ROOT);
    expect(findPackageRoot(join(REPO_ROOT, 'src/core/db'))).toBe(REPO_ROOT);
    expect(() => findPackageRoot(mkdtempSync(join(tmpdir(), 'kazma-root-')))).toThrow(/package\.json was not found/);
  });
});

describe('whether dist/ is current (bin/kazma.js runs it only then; `npm start` rebuilds otherwise)', () => {
  /** A checkout's tree: the CLI's entry, one more source file and a build stamped at `builtAt`. */
  function tree(builtAt: Date): string {
    const root = mkdtempSync(join(tmpdir(), 'kazma-dist-'));
    mkdirSync(join(root, 'src/core'), { recursive: true });
    mkdirSync(join(root, 'src/cli'), { recursive: true });
    mkdirSync(join(root, 'dist/cli'), { recursive: true });
    writeFileSync(join(root, 'src/core/a.ts'), 'export const a = 1;\n');
    writeFileSync(join(root, 'src/cli/index.ts'), '');
    writeFileSync(join(root, 'tsconfig.json'), '{}\n');
    writeFileSync(join(root, 'dist/cli/index.js'), '');
    const old = new Date(builtAt.getTime() - 60_000);
    for (const path of ['src/core/a.ts', 'src/core', 'src/cli/index.ts', 'src/cli', 'src', 'tsconfig.json'])
      utimesSync(join(root, path), old, old);
    writeFileSync(join(root, 'dist/.build-stamp'), '');
    utimesSync(join(root, 'dist/.build-stamp'), builtAt, builtAt);
    return root;
  }
  const builtAt = new Date(Date.now() - 3_600_000);
  const later = new Date(builtAt.getTime() + 1_000);

  it('is fresh when nothing changed since the build', () => {
    expect(distState(tree(builtAt))).toEqual({ state: 'fresh' });
  });

  it('is stale when a source file was saved after the build, naming it', () => {
    const root = tree(builtAt);
    utimesSync(join(root, 'src/core/a.ts'), later, later);
    expect(distState(root)).toEqual({ state: 'stale', newer: 'src/core/a.ts' });
  });

  it('is stale when a source file was added or removed (its folder changed), or a tsconfig changed', () => {
    const added = tree(builtAt);
    utimesSync(join(added, 'src/core'), later, later);
    expect(distState(added)).toEqual({ state: 'stale', newer: 'src/core' });
    const configured = tree(builtAt);
    utimesSync(join(configured, 'tsconfig.json'), later, later);
    expect(distState(configured)).toMatchObject({ state: 'stale' });
  });

  it('is stale when how the code is bundled changed (bin/bundle-options.js)', () => {
    const root = tree(builtAt);
    mkdirSync(join(root, 'bin'));
    writeFileSync(join(root, 'bin/bundle-options.js'), '');
    utimesSync(join(root, 'bin/bundle-options.js'), later, later);
    expect(distState(root)).toEqual({ state: 'stale', newer: 'bin/bundle-options.js' });
  });

  it('is fresh in an installed package, whose src/ holds only the workers in folders dated at install', () => {
    const root = tree(builtAt);
    rmSync(join(root, 'src/cli'), { recursive: true });
    utimesSync(join(root, 'src/core'), later, later);
    expect(distState(root)).toEqual({ state: 'fresh' });
  });

  it('is missing when never built or the build did not finish (no stamp)', () => {
    const root = mkdtempSync(join(tmpdir(), 'kazma-dist-'));
    expect(distState(root)).toEqual({ state: 'missing' });
    const unstamped = tree(builtAt);
    rmSync(join(unstamped, 'dist/.build-stamp'));
    expect(distState(unstamped)).toEqual({ state: 'missing' });
  });
});
