// The WebAssembly tier a bench's PGlite runs on: the one Kazma's embedded database runs on
// (src/core/db/pglite-open.ts), so the figures a bench prints are those of what Kazma runs. The benches
// open PGlite through the tests' helpers, not openPglite, so their child processes get the flag here.
import { baselineWasmFlag } from '../../src/core/db/pglite-open.ts';
import { operatorNodeFlags } from '../../src/core/node-flags.ts';
import type { Backend } from '../../tests/helpers/databases.ts';

/** Node arguments for a bench child that runs on `backend`. */
export function embeddedWasmTier(backend: Backend): string[] {
  const flag = backend === 'pglite' ? baselineWasmFlag(operatorNodeFlags()) : undefined;
  return flag ? [flag] : [];
}
