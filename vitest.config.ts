import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['tests/**/*.test.ts'],
    testTimeout: 120_000,
    hookTimeout: 120_000,
    // Two cores on CI, and several PGlite instances and spawned processes per file. Much of a file's time
    // is waiting (on a spawned process, a timer, BullMQ's stall check), so three workers keep both cores
    // busier than two: on a 2-core machine the whole run took 607 s with three and 738 s with two (CPU
    // used 173 % against 152 %), every test well inside its timeout.
    pool: 'forks',
    // A worker runs its files one after another in one module graph: Kazma's modules and their packages
    // load once per worker instead of once per file (import time summed over files: 268 s -> 28 s; the
    // whole run 607 s -> 518 s, every test passing). It relies on no test file mocking a module, faking
    // timers or changing process.env; tests/foundation/shared-workers.test.ts checks that.
    isolate: false,
    globalSetup: ['tests/helpers/global-setup.ts'],
    maxWorkers: 3,
  },
});
