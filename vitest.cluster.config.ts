// The scale-out suites (test/cluster/): `npm run cluster` started once for all of them (test/cluster/global-setup.ts,
// which first makes the cluster's builds: minutes the first time on a machine), and cluster.test.ts's own clusters.
// The balancer's own tests (test/cluster/balancer/) run Caddy alone, and the checks of the cluster's files (versions,
// secrets, the builds' cache) run nothing: a project without that set-up, which vitest runs only for the projects
// whose files it runs.
import { defineConfig } from 'vitest/config';
import { reporters } from './test/harness/reporters.ts';

const standaloneTests = [
  'test/cluster/balancer/**/*.test.ts',
  'test/cluster/cluster-secrets.test.ts',
  'test/cluster/cluster-versions.test.ts',
  'test/cluster/go-build.test.ts',
];

export default defineConfig({
  test: {
    pool: 'forks',
    maxWorkers: 1,
    testTimeout: 300_000,
    hookTimeout: 300_000,
    reporters: reporters('cluster'),
    projects: [
      {
        extends: true,
        test: {
          name: 'cluster',
          include: ['test/cluster/**/*.test.ts'],
          exclude: standaloneTests,
          globalSetup: ['test/cluster/global-setup.ts'],
        },
      },
      { extends: true, test: { name: 'standalone', include: standaloneTests } },
    ],
  },
});
