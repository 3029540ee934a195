#!/usr/bin/env node
// `npm run build`: compiles src/ to dist/ with tsconfig.build.json, then stamps dist/ so bin/kazma.js and
// `npm start` can tell it is current. It only transpiles (--noCheck), as tsx does when it runs the source:
// types are checked by `npm run typecheck` (the first step of `npm test`), so a start is neither slowed
// nor blocked by a type error, and the compiled code is the code tsx would run.
//   node bin/build.js             build (tsc is incremental: files that did not change are not rewritten)
//   node bin/build.js --if-stale  build only when the source changed since the last build (`npm start`)
import { spawnSync } from 'node:child_process';
import { mkdirSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { ROOT, distPaths, distState } from './dist-state.js';

const paths = distPaths();
const before = distState();
if (process.argv.includes('--if-stale')) {
  if (before.state === 'fresh') process.exit(0);
  console.error(before.state === 'missing' ? 'kazma: building dist/ (the first start builds; later ones skip this)…' : `kazma: rebuilding dist/ (${before.newer} changed since the last build)…`);
}

/** @type {string} */
let tsc;
try {
  tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
} catch {
  console.error('kazma: cannot build: TypeScript is not installed (it is a devDependency). Run `npm ci` without --omit=dev, or run `node bin/kazma.js`, which runs the source through tsx.');
  process.exit(1);
}
// The stamp is dated when the build starts: a file saved while tsc runs is newer, so the next start rebuilds.
const startedAt = new Date();
// Not current while tsc rewrites it: a `kazma` started meanwhile runs the source instead of half-written files.
rmSync(paths.stamp, { force: true });
const result = spawnSync(process.execPath, [tsc, '-p', 'tsconfig.build.json', '--noCheck'], { cwd: ROOT, stdio: 'inherit' });
if (result.status !== 0) {
  console.error('kazma: the build failed (see above); dist/ is not marked current.');
  process.exit(result.status ?? 1);
}
mkdirSync(paths.dist, { recursive: true });
writeFileSync(paths.stamp, `built from the source as of ${startedAt.toISOString()}\n`);
utimesSync(paths.stamp, startedAt, startedAt);
