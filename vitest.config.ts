import { defineConfig } from 'vitest/config';
import { reporters } from './test/harness/reporters.ts';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // vitest.cluster.config.ts runs these (after this run, in `npm test`; alone: `npm run test:cluster`).
    exclude: ['test/cluster/**', '**/node_modules/**'],
    globalSetup: ['test/global-setup.ts'],
    setupFiles: ['test/setup-file.ts'],
    // Child processes: Temporal's native bridge and workers are happiest outside worker threads.
    pool: 'forks',
    maxWorkers: 2,
    testTimeout: 60_000,
    // expect.poll waits for what a loaded 2-core machine may take seconds to do (a page's fetch, a delivery): its
    // 1 s default tells "late" from "never" too narrowly. A poll that should stay false is never written with it.
    expect: { poll: { timeout: 15_000 } },
    hookTimeout: 120_000,
    reporters: reporters('main'),
  },
});
