// The bench behind docs/performance.md's long-conversation figures runs, with small sizes, and prints every figure.
import { describe, expect, it } from 'vitest';
import { N, runBench } from './run-bench.ts';

describe('bench/long-thread.ts runs', () => {
  it('long-thread prints CPU and statements at turns 1 and 100 of one chat, and their ratio, with the context window trimming', {
    timeout: 300_000,
  }, async () => {
    const out = await runBench('bench/long-thread.ts', ['--turns', '100', '--max-tokens', '2000']);
    for (const database of ['pglite', 'postgres']) {
      for (const turn of [1, 100])
        expect(out).toMatch(new RegExp(`^${database}\\s+turn\\s+${turn}:\\s+${N} CPU-ms, ${N} statements`, 'm'));
      expect(out).toMatch(new RegExp(`^${database}\\s+turn 100 / turn 1: ${N} \\(CPU\\)`, 'm'));
    }
  });
});
