#!/usr/bin/env node
// `npm run build`: bundles src/ into dist/ with esbuild, then stamps dist/ so bin/kazma.js and `npm start`
// can tell it is current. It only transpiles, as tsx (esbuild too) does when it runs the source: types are
// checked by `npm run typecheck` (the first step of `npm test`), so a start is neither slowed nor blocked
// by a type error, and the compiled code is the code tsx would run.
//
// Why a bundle: a start loaded ~3,400 files from node_modules one by one, and resolving, reading and
// linking them was over half of a start (see docs/performance.md, "Footprint and start time"). How it is bundled
// (split at every dynamic import, a few packages left outside) is bin/bundle-options.js.
//   node bin/build.js             build
//   node bin/build.js --if-stale  build only when the source changed since the last build (`npm start`)
import { mkdirSync, readdirSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { bundleOptions } from './bundle-options.js';
import { ROOT, distPaths, distState } from './dist-state.js';

const paths = distPaths();
const before = distState();
if (process.argv.includes('--if-stale')) {
  if (before.state === 'fresh') process.exit(0);
  console.error(
    before.state === 'missing'
      ? 'kazma: building dist/ (the first start builds; later ones skip this)…'
      : `kazma: rebuilding dist/ (${before.newer} changed since the last build)…`,
  );
}

/** @type {typeof import('esbuild')} */
let esbuild;
try {
  esbuild = await import('esbuild');
} catch {
  console.error(
    'kazma: cannot build: esbuild is not installed (it is a devDependency). Run `npm ci` without --omit=dev, or run `node bin/kazma.js`, which runs the source through tsx.',
  );
  process.exit(1);
}

/** Builds kept in dist/builds/: the current one and the two before it, for processes started from those. */
const KEPT_BUILDS = 3;

// The stamp is dated when the build starts: a file saved while esbuild runs is newer, so the next start rebuilds.
const startedAt = new Date();
// Not current while it is rewritten (no stamp): a `kazma` started meanwhile runs the source instead.
rmSync(paths.stamp, { force: true });
// Each build in a folder of its own, and dist/cli/index.js names the current one. A process started from an
// earlier build loads that build's chunks on first use, maybe long after it started: a rebuild meanwhile
// (say, `git pull && npm run build` before a restart) must not take them away. The newest few are kept.
const buildId = startedAt.toISOString().replace(/[:.]/g, '-');
const builds = join(paths.dist, 'builds');
try {
  await esbuild.build(bundleOptions({ root: ROOT, entryPoints: ['src/cli/index.ts'], outdir: join(builds, buildId) }));
} catch {
  console.error('kazma: the build failed (see above); dist/ is not marked current.');
  process.exit(1);
}
mkdirSync(dirname(paths.cli), { recursive: true });
writeFileSync(
  paths.cli,
  `// The current build of bin/build.js (${startedAt.toISOString()}).\nimport '../builds/${buildId}/index.js';\n`,
);
for (const old of readdirSync(builds).sort().slice(0, -KEPT_BUILDS))
  rmSync(join(builds, old), { recursive: true, force: true });
writeFileSync(paths.stamp, `built from the source as of ${startedAt.toISOString()}\n`);
utimesSync(paths.stamp, startedAt, startedAt);
