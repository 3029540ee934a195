// How Kazma's code is bundled, in one place: `npm run build` (bin/build.js) bundles src/ into dist/ with
// these options, and the test run bundles its spawned fixtures with the same (tests/helpers/fixture-bundles.ts),
// so a fixture runs the code a `kazma` process runs.
//
// The bundle is split at every dynamic import(), so what Kazma loads on first use (a platform's SDK, the
// MCP SDK, an HTML parser) still loads only then. A few packages stay outside, loaded from node_modules:
// PGlite and its pgvector extension find their WebAssembly and data files next to their own modules
// (`new URL(…, import.meta.url)`, which in a chunk would point into dist/), pino's pretty output runs in a
// worker loaded by file name, msgpackr loads an optional native addon, and optional native modules
// (pg-native, zlib-sync, bufferutil, utf-8-validate) may be absent.

/** Packages loaded from node_modules at run time instead of bundled (see the top). */
const EXTERNAL = [
  '@electric-sql/pglite',
  '@electric-sql/pglite-pgvector',
  'pino',
  'pino-pretty',
  'thread-stream',
  'msgpackr',
  'msgpackr-extract',
  'pg-native',
  'zlib-sync',
  'bufferutil',
  'utf-8-validate',
];

// CommonJS modules inside an ES module bundle still call require() and read __dirname/__filename: each
// chunk defines them for itself (__dirname is the chunk's folder; the bundled packages use it only to
// shorten stack traces and to find worker files Kazma does not use).
const BANNER = [
  "import { createRequire as __kazmaCreateRequire } from 'node:module';",
  "import { fileURLToPath as __kazmaFileURLToPath } from 'node:url';",
  'const require = __kazmaCreateRequire(import.meta.url);',
  'const __kazma_filename = __kazmaFileURLToPath(import.meta.url);',
  "const __kazma_dirname = __kazma_filename.slice(0, __kazma_filename.lastIndexOf('/'));",
].join('\n');

/**
 * esbuild's options for bundling `entryPoints` (paths relative to `root`) into `outdir`.
 * @param {{ root: string, entryPoints: string[] | Record<string, string>, outdir: string }} options
 * @returns {import('esbuild').BuildOptions}
 */
export function bundleOptions({ root, entryPoints, outdir }) {
  return {
    absWorkingDir: root,
    entryPoints,
    outdir,
    chunkNames: 'chunks/[name]-[hash]',
    bundle: true,
    splitting: true,
    format: 'esm',
    platform: 'node',
    target: 'node20',
    tsconfig: 'tsconfig.json',
    external: EXTERNAL.flatMap((name) => [name, `${name}/*`]),
    banner: { js: BANNER },
    define: { __dirname: '__kazma_dirname', __filename: '__kazma_filename' },
    legalComments: 'none',
    minifyWhitespace: true,
    minifySyntax: true,
    logLevel: 'warning',
  };
}
