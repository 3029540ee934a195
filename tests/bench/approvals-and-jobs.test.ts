// The benches behind docs/performance.md's approval, job and scale figures run, with small sizes, and print every
// figure; the counts they check for correctness (one winner per gate, every reply in order) hold.
import { describe, expect, it } from 'vitest';
import { N, runBench } from './run-bench.ts';

describe('bench/approvals.ts, bench/jobs.ts and bench/scale.ts run', () => {
  it('approvals: 1,000 decisions on 100 gates settle exactly 100, with statements per decision, on both databases', {
    timeout: 300_000,
  }, async () => {
    const out = await runBench('bench/approvals.ts', []);
    for (const database of ['pglite', 'postgres']) {
      expect(out).toMatch(
        new RegExp(
          `^\\(a\\) ${database}\\s+1000 decisions over 100 gates: winners 100 \\(gates with exactly one 'won' audit row: 100\\), wall ${N} ms.* ${N} statements per decision`,
          'm',
        ),
      );
      expect(out).toMatch(
        new RegExp(
          `^\\(c\\) ${database}\\s+2-of-3 policy, 1000 approvals over 100 gates: quorums 100 \\(gates with exactly one 'counted' and one 'won' row: 100\\), wall ${N} ms, ${N} decisions/s, ${N} statements per decision`,
          'm',
        ),
      );
      expect(out).toMatch(
        new RegExp(
          `^\\(b\\) ${database}\\s+decide\\(\\) → last of 3 card edits delivered, 100 gates: p50 ${N} ms`,
          'm',
        ),
      );
    }
  });

  it('jobs: bare BullMQ jobs/s beside full-path tasks in process and on one and two workers', {
    timeout: 300_000,
  }, async () => {
    const out = await runBench('bench/jobs.ts', ['--tasks', '30']);
    expect(out).toMatch(new RegExp(`^\\(a\\) bare BullMQ no-op jobs:\\s+${N} jobs/s`, 'm'));
    expect(out).toMatch(
      new RegExp(`^\\(b\\) full-path tasks, in-process:\\s+${N} tasks/s .* ${N}× the bare rate`, 'm'),
    );
    expect(out).toMatch(new RegExp(`^\\(c\\) full-path tasks, 2 kazma workers:\\s+${N} tasks/s`, 'm'));
  });

  it('scale: msg/s through one process and two on one PostgreSQL, every reply checked', {
    timeout: 300_000,
  }, async () => {
    const out = await runBench('bench/scale.ts', [
      '--messages',
      '40',
      '--concurrency',
      '4',
      '--chats',
      '8',
      '--warmup',
      '4',
    ]);
    for (const run of ['1 process', '2 processes, alternate', '2 processes, sticky']) {
      expect(out).toMatch(new RegExp(`^${run}\\s+${N}\\s+${N}\\s+${N}\\s+${N}$`, 'm'));
    }
    expect(out).toMatch(new RegExp(`^2 processes, alternate / 1 process: throughput ${N}×`, 'm'));
  });
});
