// The bench behind docs/performance.md's memory-recall figures runs, with small sizes, and prints every figure.
import { describe, expect, it } from 'vitest';
import { N, runBench } from './run-bench.ts';

describe('bench/memory-recall.ts runs', () => {
  it('prints precision, recall and injections on unanswerable for both halves, and recall latency', {
    timeout: 300_000,
  }, async () => {
    const scores = await runBench('bench/memory-recall.ts', []);
    for (const half of ['tune', 'held'])
      expect(scores).toMatch(
        new RegExp(
          `^${half}\\s+${N} questions .*precision ${N} %, recall ${N} %, injected on unanswerable ${N} %`,
          'm',
        ),
      );
    const latency = await runBench('bench/memory-recall.ts', ['--latency', '200']);
    for (const backend of ['pglite', 'postgres'])
      expect(latency).toMatch(
        new RegExp(
          `^${backend} \\(\\w+\\) 200 notes, ${N} questions: recall p50 ${N} ms, p95 ${N} ms; ` +
            `baseline p95 ${N} ms \\(×${N}\\)`,
          'm',
        ),
      );
  });
});
