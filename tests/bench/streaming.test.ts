// The bench behind docs/performance.md's streaming figures runs, with small sizes, and prints every figure.
import { describe, expect, it } from 'vitest';
import { N, runBench } from './run-bench.ts';

describe('bench/streaming.ts runs', () => {
  it('streaming prints the lag from first token to first visible text, and the CPU of a streamed turn over a whole one', {
    timeout: 300_000,
  }, async () => {
    const out = await runBench('bench/streaming.ts', ['--turns', '3', '--words', '12', '--word-ms', '20']);
    expect(out).toMatch(new RegExp(`^first visible text - first token: p50 ${N} ms, p95 ${N} ms`, 'm'));
    expect(out).toMatch(new RegExp(`^CPU per turn: streamed ${N} ms, whole ${N} ms, ratio ${N}`, 'm'));
    expect(out).toMatch(
      new RegExp(`^of which the main thread \\(.*\\), medians: streamed ${N} ms, whole ${N} ms, ratio ${N}$`, 'm'),
    );
    expect(out).toMatch(
      new RegExp(`^times on a CPU per turn \\(wake-ups, every thread\\), medians: streamed ${N}, whole ${N}$`, 'm'),
    );
  });
});
