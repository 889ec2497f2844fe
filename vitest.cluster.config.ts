// The scale-out suites (test/cluster/): `npm run cluster` started once for all of them (test/cluster/global-setup.ts,
// which first makes the cluster's builds: minutes the first time on a machine), and cluster.test.ts's own clusters.
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/cluster/**/*.test.ts'],
    globalSetup: ['test/cluster/global-setup.ts'],
    pool: 'forks',
    maxWorkers: 1,
    testTimeout: 300_000,
    hookTimeout: 300_000,
    reporters: ['default'],
  },
});
