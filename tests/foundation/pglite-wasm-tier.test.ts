// The embedded database's WebAssembly tier (src/core/db/pglite-open.ts): Liftoff only, unless the operator
// picked a tier on node's command line or in NODE_OPTIONS. What it saves is printed by bench/footprint.ts.
import { describe, expect, it } from 'vitest';
import { baselineWasmFlag } from '../../src/core/db/pglite-open.ts';

describe('the embedded database keeps WebAssembly on the baseline tier', () => {
  it('asks for Liftoff only when node was started without a WebAssembly tier flag', () => {
    expect(baselineWasmFlag('')).toBe('--liftoff-only');
    expect(baselineWasmFlag('--import tsx --max-old-space-size=512 --semi-space-growth-factor=1')).toBe(
      '--liftoff-only',
    );
  });

  it.each([
    '--no-liftoff-only',
    '--liftoff-only',
    '--no-liftoff',
    '--wasm-tier-up',
    '--wasm-tiering-budget=50000000',
    '--no-wasm-dynamic-tiering',
    '--wasm_tiering_budget=1',
  ])('leaves the tier to the operator who gave %s', (given) => {
    expect(baselineWasmFlag(`--import tsx ${given}`)).toBeUndefined();
  });
});
