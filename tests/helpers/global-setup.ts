// Runs once per test run, before any worker: builds the migrated PGlite template every storage test
// copies (initdb in WASM plus migrations costs seconds; doing it once instead of once per test file
// keeps the suite well inside CI's time), and brings dist/ up to date, so every `kazma` process a test
// spawns (bin/kazma.js) runs the compiled code `npm start` runs — not the source through tsx, which
// costs each spawn ~3 s of CPU more, nor one or the other depending on which test file ran first. For the
// same reason it bundles the test fixtures the tests spawn (tests/helpers/fixture-bundles.ts).
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestProject } from 'vitest/node';
import { distPaths } from '../../bin/dist-state.js';
import { bundleFixtures } from './fixture-bundles.ts';
import { buildPgliteTemplate } from './pglite-template.ts';
import { REPO_ROOT } from './repo-root.ts';

declare module 'vitest' {
  export interface ProvidedContext {
    pgliteTemplatePath: string;
    /** Each spawned fixture's bundle, by its path from the repository root (tests/helpers/fixtures.ts). */
    fixtureBundles: Record<string, string>;
  }
}

export default async function setup(project: TestProject): Promise<() => void> {
  execFileSync(process.execPath, [join(REPO_ROOT, 'bin/build.js'), '--if-stale'], { stdio: 'inherit' });
  const dir = mkdtempSync(join(tmpdir(), 'kazma-template-'));
  const path = join(dir, 'pglite.tar');
  writeFileSync(path, Buffer.from(await (await buildPgliteTemplate()).arrayBuffer()));
  project.provide('pgliteTemplatePath', path);
  // Under the repository, so what the bundles leave outside (PGlite, pino) is found in node_modules; a
  // folder per run, so two runs at once never share one.
  const { dist } = distPaths();
  removeAbandonedBundles(dist);
  const fixtures = mkdtempSync(join(dist, 'test-fixtures-'));
  project.provide('fixtureBundles', await bundleFixtures(fixtures));
  return () => {
    rmSync(dir, { recursive: true, force: true });
    rmSync(fixtures, { recursive: true, force: true });
  };
}

/** A run that was killed never removed its bundles; those a day old cannot belong to a run still going. */
function removeAbandonedBundles(dist: string): void {
  const dayAgo = Date.now() - 86_400_000;
  for (const name of readdirSync(dist)) {
    const path = join(dist, name);
    if (name.startsWith('test-fixtures-') && statSync(path).mtimeMs < dayAgo)
      rmSync(path, { recursive: true, force: true });
  }
}
