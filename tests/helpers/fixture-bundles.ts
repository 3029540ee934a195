// Bundles every spawned test fixture (tests/**/fixtures/*.ts) once per test run, with the options
// `npm run build` bundles Kazma with (bin/bundle-options.js), so a fixture runs the code a `kazma`
// process runs. The bundles go under the repository (not /tmp): the packages left outside the bundle
// (PGlite, pino) are found in node_modules from there, and src/core/package-root.ts finds package.json.
import { readdirSync } from 'node:fs';
import { join, relative } from 'node:path';
import * as esbuild from 'esbuild';
import { bundleOptions } from '../../bin/bundle-options.js';
import { REPO_ROOT } from './repo-root.ts';

/** Every `fixtures/` file under tests/, relative to the repository. */
export function fixtureSources(dir = join(REPO_ROOT, 'tests')): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (!entry.isDirectory()) return [];
    if (entry.name !== 'fixtures') return fixtureSources(path);
    return readdirSync(path)
      .filter((name) => name.endsWith('.ts'))
      .map((name) => relative(REPO_ROOT, join(path, name)));
  });
}

/** Bundles the fixtures into `outdir` (under the repository); returns each fixture's bundle by its source path. */
export async function bundleFixtures(outdir: string): Promise<Record<string, string>> {
  const sources = fixtureSources();
  const entryPoints = Object.fromEntries(sources.map((source) => [source.replace(/\.ts$/, ''), source]));
  await esbuild.build(bundleOptions({ root: REPO_ROOT, entryPoints, outdir }));
  return Object.fromEntries(sources.map((source) => [source, join(outdir, source.replace(/\.ts$/, '.js'))]));
}
