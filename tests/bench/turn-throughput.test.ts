// The bench behind docs/performance.md's turn figures runs, with small sizes, and prints every figure.
import { describe, expect, it } from 'vitest';
import { N, runBench } from './run-bench.ts';

describe('bench/turn-throughput.ts runs', () => {
  it('turn-throughput prints CPU and statements per turn beside each floor, and msg/s beside the bare echo bot, on both databases', {
    timeout: 300_000,
  }, async () => {
    const out = await runBench('bench/turn-throughput.ts', [
      '--turns',
      '5',
      '--rounds',
      '1',
      '--messages',
      '20',
      '--concurrency',
      '4',
      '--chats',
      '8',
      '--warmup',
      '4',
    ]);
    for (const database of ['pglite', 'postgres']) {
      // floor exit, async, sync, stock, then Kazma: CPU-ms and statements each
      expect(out).toMatch(new RegExp(`^${database}\\s+(${N}\\s+${N}\\s+){4}${N}\\s+${N}$`, 'm'));
      expect(out).toMatch(new RegExp(`^${database}\\s+(${N}× \\[${N}–${N}\\]\\s*){4}$`, 'm'));
      expect(out).toMatch(
        new RegExp(`^\\(b\\) Kazma, ${database}\\s+${N}\\s+${N}\\s+${N}\\s+${N} → ${N}\\s+${N}$`, 'm'),
      );
      expect(out).toMatch(new RegExp(`^ratio Kazma, ${database} / bare echo: throughput ${N}×`, 'm'));
    }
    expect(out).toMatch(new RegExp(`^\\(a\\) bare grammY echo\\s+${N}`, 'm'));
  });
});
