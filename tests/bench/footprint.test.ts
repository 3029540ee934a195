// The benches behind docs/performance.md's footprint and model-call figures run, with small sizes, and print
// every figure.
import { describe, expect, it } from 'vitest';
import { N, runBench } from './run-bench.ts';

describe('bench/footprint.ts and bench/model-call.ts run', () => {
  it('footprint prints start time and RSS of `kazma start` with three adapters, beside a bare node server, for each database and data dir', {
    timeout: 300_000,
  }, async () => {
    const out = await runBench('bench/footprint.ts', ['--runs', '1', '--settle', '300', '--runtime', 'compiled']);
    expect(out).toMatch(new RegExp(`^—\\s+—\\s+bare node http\\s+${N}`, 'm'));
    for (const database of ['pglite', 'postgres']) {
      for (const dataDir of ['fresh', 'existing']) {
        // start→/readyz, start→started, RSS settled, RSS after GC, heap, external, idle CPU, idle wake-ups
        expect(out).toMatch(new RegExp(`^${database}\\s+${dataDir}\\s+compiled\\s+(${N}\\s+){8}`, 'm'));
        expect(out).toMatch(
          new RegExp(`^  ${database} ${dataDir}: ÷ bare node: RSS after GC ×${N}; idle CPU [+-]${N} ms/s over it`, 'm'),
        );
      }
    }
  });

  it('model-call prints CPU per call for LangChain, the SDK and the bare request', { timeout: 300_000 }, async () => {
    const out = await runBench('bench/model-call.ts', ['--calls', '10', '--rounds', '2', '--messages', '10']);
    for (const kind of ['langchain', 'sdk', 'http'])
      expect(out).toMatch(new RegExp(`^${kind}\\s+${N} \\[${N}–${N}\\]`, 'm'));
  });
});
