// `npm run test:cluster`: the tests that start `npm run cluster` (test/cluster/). Apart from `npm test` for now: they
// need the cluster's builds (`npm run cluster -- --build`, minutes the first time) and HAProxy from the system.
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/cluster/**/*.test.ts'],
    pool: 'forks',
    maxWorkers: 1,
    testTimeout: 600_000,
    hookTimeout: 120_000,
    reporters: ['default'],
  },
});
