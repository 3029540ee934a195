// The metrics' event-loop monitor must not keep an idle process awake: prom-client's default samples every
// 10 ms, a hundred wake-ups a second in every Kazma process doing nothing (~40 % of what an idle Kazma cost).
// A child process builds a Meter, as every start does, then sits idle; the kernel counts how many times its
// main thread was put on a CPU (schedstat's third field).
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../../helpers/repo-root.ts';

const CHILD = `
import { Meter } from './src/core/metrics/index.ts';
new Meter();
setInterval(() => {}, 1 << 30); // alive, and otherwise idle
console.log('ready');
`;

/** Times the main thread of `pid` was put on a CPU so far. */
function runsOf(pid: number): number {
  return Number(readFileSync(`/proc/${pid}/task/${pid}/schedstat`, 'utf8').split(' ')[2]);
}

describe('metrics in an idle process', () => {
  it('wake the process a few times a second, not a hundred', async () => {
    const child = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', CHILD], {
      cwd: REPO_ROOT,
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    try {
      await once(child.stdout!, 'data');
      await new Promise((r) => setTimeout(r, 1_000)); // the start's own work (module loading, GC) is over
      const before = runsOf(child.pid!);
      await new Promise((r) => setTimeout(r, 2_000));
      const perSecond = (runsOf(child.pid!) - before) / 2;
      // 100 ms sampling: ~10 a second. The old 10 ms: ~100.
      expect(perSecond).toBeLessThan(30);
    } finally {
      child.kill('SIGKILL');
    }
  });
});
