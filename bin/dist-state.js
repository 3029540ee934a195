// Whether dist/ (the compiled JavaScript) is the source as it is now. A stale dist must never run silently
// old code, so the inputs are every file and folder under src/ (a folder's mtime changes when a file in it
// is added, removed or renamed), tsconfig.json and the build scripts, against the stamp bin/build.js writes.
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The repository (or installed package) root: the folder above bin/. */
export const ROOT = fileURLToPath(new URL('..', import.meta.url));

/** Where the build's inputs and outputs are under `root`. */
export function distPaths(root = ROOT) {
  const dist = join(root, 'dist');
  return {
    dist,
    cli: join(dist, 'cli', 'index.js'),
    /** Written by bin/build.js after a successful build, dated when that build began reading the source. */
    stamp: join(dist, '.build-stamp'),
    sources: join(root, 'src'),
    configs: ['tsconfig.json', 'bin/build.js', 'bin/bundle-options.js'].map((name) => join(root, name)),
  };
}

/**
 * `fresh` (dist/ was built from the source as it is), `stale` (naming a newer input, relative to `root`),
 * `missing` (never built). Without the source (an npm install ships dist/ and only the two worker files of
 * src/, whose folders are dated at install time) a built dist is fresh.
 * @param {string} [root]
 * @returns {{ state: 'fresh' } | { state: 'stale', newer: string } | { state: 'missing' }}
 */
export function distState(root = ROOT) {
  const paths = distPaths(root);
  if (!existsSync(paths.stamp) || !existsSync(paths.cli)) return { state: 'missing' };
  if (!existsSync(join(paths.sources, 'cli', 'index.ts'))) return { state: 'fresh' };
  const builtAt = statSync(paths.stamp).mtimeMs;
  const newer =
    newerThan(paths.sources, builtAt) ??
    paths.configs.find((path) => existsSync(path) && statSync(path).mtimeMs > builtAt);
  return newer ? { state: 'stale', newer: newer.slice(root.length).replace(/^\//, '') } : { state: 'fresh' };
}

/**
 * The first path under `dir` (itself included) modified after `time`, or undefined.
 * @param {string} dir
 * @param {number} time
 * @returns {string | undefined}
 */
function newerThan(dir, time) {
  if (!existsSync(dir)) return undefined;
  if (statSync(dir).mtimeMs > time) return dir;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    const found = entry.isDirectory() ? newerThan(path, time) : statSync(path).mtimeMs > time ? path : undefined;
    if (found) return found;
  }
  return undefined;
}
