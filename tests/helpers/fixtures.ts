// How a test starts a child process of its own (a fixture: a Kazma with test tools, a journal writer,
// a PGlite writer). Fixtures live in a `fixtures/` folder beside their tests, and global-setup bundles
// them all once per test run (tests/helpers/fixture-bundles.ts), as `npm run build` bundles Kazma: a
// child run through tsx transpiled and loaded src/ afresh, ~3 s of CPU per child, dozens per run.
import { isAbsolute, join, relative } from 'node:path';
import { inject } from 'vitest';
import { REPO_ROOT } from './repo-root.ts';

/** The bundles global-setup built for this run, by fixture path relative to the repository; none outside vitest. */
function bundlesOfRun(): Record<string, string> {
  try {
    return inject('fixtureBundles') ?? {};
  } catch {
    return {}; // a bench or a script outside the test run: the source, through tsx
  }
}

/** Thrown when a test spawns a TypeScript file that is not in a fixtures/ folder (it was not bundled). */
export class UnbundledFixtureError extends Error {
  constructor(script: string) {
    super(
      `${script} is spawned by a test but was not bundled: put it in a fixtures/ folder beside its tests (tests/helpers/fixture-bundles.ts bundles tests/**/fixtures/*.ts)`,
    );
  }
}

/**
 * The node arguments that run `script` (a path from the repository root, or absolute): its bundle in a
 * test run, else the TypeScript source through tsx. A test run with bundles refuses a fixture it has no
 * bundle for rather than quietly paying tsx's cost.
 */
export function fixtureArgs(script: string): string[] {
  if (!script.endsWith('.ts')) return [script];
  const bundles = bundlesOfRun();
  const bundled = bundles[relative(REPO_ROOT, isAbsolute(script) ? script : join(REPO_ROOT, script))];
  if (bundled) return [bundled];
  if (Object.keys(bundles).length > 0) throw new UnbundledFixtureError(script);
  return ['--import', 'tsx', script];
}
