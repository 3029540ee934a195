// What a process's threads have cost so far, from the kernel: exact, where /proc/<pid>/stat counts 10 ms
// clock ticks. Benches read it before and after what they measure.
import { readdirSync, readFileSync } from 'node:fs';

/**
 * On-CPU ms and times put on a CPU so far, summed over every thread of process `pid` (the first and third
 * fields of each thread's schedstat). The second counts wake-ups, which a noisy host makes dear: it explains
 * a CPU figure without being as noisy. A thread that ended between two reads takes its figures with it;
 * Kazma's threads (libuv's pool, V8's) live as long as it does. `mainMs` is the main thread's share (its
 * task id is the process's): where JavaScript runs, apart from V8's helper threads, whose garbage
 * collection and optimising compiles come in lumps (a major collection every minute or so) that land in
 * whichever turn is running.
 */
export function threadsOnCpu(pid: number): { cpuMs: number; runs: number; mainMs: number } {
  let ns = 0;
  let runs = 0;
  let mainNs = 0;
  for (const task of readdirSync(`/proc/${pid}/task`)) {
    try {
      const fields = readFileSync(`/proc/${pid}/task/${task}/schedstat`, 'utf8').split(' ');
      ns += Number(fields[0]);
      runs += Number(fields[2]);
      if (task === String(pid)) mainNs = Number(fields[0]);
    } catch {
      // The thread ended as it was read.
    }
  }
  return { cpuMs: ns / 1e6, runs, mainMs: mainNs / 1e6 };
}
