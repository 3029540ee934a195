import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['tests/**/*.test.ts'],
    testTimeout: 120_000,
    hookTimeout: 120_000,
    // Two cores on CI: several PGlite instances and spawned processes per file; keep the pool small.
    pool: 'forks',
    globalSetup: ['tests/helpers/global-setup.ts'],
    maxWorkers: 2,
  },
});
