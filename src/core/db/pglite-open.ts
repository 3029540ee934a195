// How Kazma opens its embedded PGlite: with lean memory settings, and a new data directory initialised
// (initdb) in a short-lived child process, so the memory initdb leaves behind dies with that process.
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { setFlagsFromString } from 'node:v8';
import { PGlite, type PGliteOptions } from '@electric-sql/pglite';
import { vector } from '@electric-sql/pglite-pgvector';
import { operatorNodeFlags } from '../node-flags.ts';

/**
 * PostgreSQL settings the embedded database starts with, on top of PGlite's own start parameters.
 * Measured on Kazma's own workload (bench/footprint.ts; docs/performance.md "Footprint and start time"):
 * - `shared_buffers`: PGlite starts PostgreSQL with 128 MB of buffer cache, and its WASM memory never
 *   shrinks, so the cache becomes resident as it fills: ~310 MB RSS for PGlite alone, against ~155 MB at
 *   16 MB (8 MB and 1 MB saved little more). A page not in the cache is one read() from the operating
 *   system's page cache away; wal_buffers follows it (1/32). work_mem, temp_buffers and
 *   maintenance_work_mem are limits, not allocations: lowering them changed nothing measurable.
 */
export const PGLITE_SETTINGS: Readonly<Record<string, string>> = {
  shared_buffers: '16MB',
};

/**
 * The extensions PGlite loads (each is found by `pg_available_extensions`; the migrations create them):
 * pgvector, for memory's similarity search with an HNSW index (memory/similarity.ts). Every opener of
 * the embedded database loads it, since a table that uses its type cannot be read without it.
 */
export const PGLITE_EXTENSIONS = { vector };

/** PGlite's default start parameters followed by {@link PGLITE_SETTINGS} as `-c name=value`. */
export function pgliteStartParams(settings: Readonly<Record<string, string>> = PGLITE_SETTINGS): string[] {
  return [
    ...PGlite.defaultStartParams,
    ...Object.entries(settings).flatMap(([name, value]) => ['-c', `${name}=${value}`]),
  ];
}

/**
 * The V8 flag that keeps WebAssembly on its baseline compiler (Liftoff), or undefined when the operator
 * chose a WebAssembly tier themselves (`given`: node's command line and NODE_OPTIONS).
 *
 * V8 compiles wasm with Liftoff first and then, on background threads, recompiles the functions that run
 * often with its optimising compiler (TurboFan). For PGlite — PostgreSQL compiled to wasm — that second
 * compilation is what an idle process keeps (bench/footprint.ts; docs/performance.md "Footprint and start time"):
 * PGlite alone after the same 15,000 statements held 225–252 MB RSS with it and 161–165 MB without, and
 * each statement cost ~13 % more CPU on Liftoff code (a simple chat turn ~4 %, within this machine's
 * run-to-run noise). A new data dir's initdb ran in 2.0 s instead of 2.6 s. For a chat agent that waits
 * on model calls, memory is the scarcer of the two; an operator who wants the optimising tier back
 * starts node with `--no-liftoff-only` (or any other `--liftoff…`/`--wasm-tier…` flag).
 */
export function baselineWasmFlag(given: string): string | undefined {
  return /--(no-)?(liftoff|wasm[-_]tier|wasm[-_]dynamic[-_]tiering)/.test(given) ? undefined : '--liftoff-only';
}

/**
 * Opens the PGlite database in `dir`, creating it first when it does not exist yet. initdb runs in a
 * child process: in this process it would leave several hundred MB (a second PGlite and the initdb WASM
 * instance) that a GC frees only in part, for as long as Kazma runs; the child costs a node start.
 * WebAssembly compiled from here on stays on V8's baseline tier ({@link baselineWasmFlag}): the flag is
 * read as each module compiles, so it is set before PGlite's.
 */
export async function openPglite(dir: string): Promise<PGlite> {
  if (!existsSync(join(dir, 'PG_VERSION'))) await initdbInChild(dir, baselineWasmFlag(operatorNodeFlags()));
  return startPglite({ dataDir: dir });
}

/**
 * Starts PGlite as Kazma runs it, whatever it starts from (a data dir, or a dump in `loadDataDir`): on
 * the baseline WebAssembly tier ({@link baselineWasmFlag}, set before PGlite's module compiles) with
 * {@link PGLITE_SETTINGS} and {@link PGLITE_EXTENSIONS}. The tests' and benches' embedded databases
 * start here too, so what they measure and exercise is what Kazma runs.
 */
export function startPglite(options: Omit<PGliteOptions, 'startParams' | 'extensions'>): Promise<PGlite> {
  const wasmFlag = baselineWasmFlag(operatorNodeFlags());
  if (wasmFlag) setFlagsFromString(wasmFlag);
  return PGlite.create({ ...options, extensions: PGLITE_EXTENSIONS, startParams: pgliteStartParams() });
}

// CommonJS: the child resolves nothing itself (it may start in any working directory), it requires the
// very PGlite build this process resolved.
const INITDB = `const [pglite, dir] = process.argv.slice(1);
require(pglite).PGlite.create({ dataDir: dir }).then((db) => db.close()).catch((error) => {
  console.error(error.message);
  process.exit(1);
});`;

function initdbInChild(dir: string, wasmFlag: string | undefined): Promise<void> {
  const pglite = createRequire(import.meta.url).resolve('@electric-sql/pglite');
  return new Promise((resolve, reject) => {
    execFile(
      process.execPath,
      [...(wasmFlag ? [wasmFlag] : []), '-e', INITDB, pglite, dir],
      { timeout: 300_000 },
      (error, _stdout, stderr) => {
        if (error) reject(new Error(`initdb failed: ${stderr.trim() || error.message}`, { cause: error }));
        else resolve();
      },
    );
  });
}
