// The benches behind the README's turn figures run, with small sizes, and print every figure.
import { describe, expect, it } from 'vitest';
import { N, runBench } from './run-bench.ts';

describe('bench/turn-throughput.ts and bench/long-thread.ts run', () => {
  it('turn-throughput prints CPU and statements per turn beside each floor, and msg/s beside the bare echo bot, on both databases', { timeout: 300_000 }, async () => {
    const out = await runBench('bench/turn-throughput.ts', ['--turns', '5', '--rounds', '1', '--messages', '20', '--concurrency', '4', '--chats', '8', '--warmup', '4']);
    for (const database of ['pglite', 'postgres']) {
      // floor exit, async, sync, stock, then Kazma: CPU-ms and statements each
      expect(out).toMatch(new RegExp(`^${database}\\s+(${N}\\s+${N}\\s+){4}${N}\\s+${N}$`, 'm'));
      expect(out).toMatch(new RegExp(`^${database}\\s+(${N}× \\[${N}–${N}\\]\\s*){4}$`, 'm'));
      expect(out).toMatch(new RegExp(`^\\(b\\) Kazma, ${database}\\s+${N}\\s+${N}\\s+${N}\\s+${N} → ${N}\\s+${N}$`, 'm'));
      expect(out).toMatch(new RegExp(`^ratio Kazma, ${database} / bare echo: throughput ${N}×`, 'm'));
    }
    expect(out).toMatch(new RegExp(`^\\(a\\) bare grammY echo\\s+${N}`, 'm'));
  });

  it('long-thread prints CPU and statements at turns 1 and 100 of one chat, and their ratio, with the context window trimming', { timeout: 300_000 }, async () => {
    const out = await runBench('bench/long-thread.ts', ['--turns', '100', '--max-tokens', '2000']);
    for (const database of ['pglite', 'postgres']) {
      for (const turn of [1, 100]) expect(out).toMatch(new RegExp(`^${database}\\s+turn\\s+${turn}:\\s+${N} CPU-ms, ${N} statements`, 'm'));
      expect(out).toMatch(new RegExp(`^${database}\\s+turn 100 / turn 1: ${N} \\(CPU\\)`, 'm'));
    }
  });
});
