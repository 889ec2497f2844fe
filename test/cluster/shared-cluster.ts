// The shared cluster of test/cluster/global-setup.ts as a test file sees it: the balancer's URL for requests, and
// the cluster's own database for what only the operator sees (the ledger, the delivery log).
import { afterAll, beforeAll, inject } from 'vitest';
import { createPrisma, type PrismaClient } from '../../src/db/prisma.ts';
import { credit } from '../../src/ledger/ledger.ts';
import { createDeveloperWithKey } from '../helpers/accounts.ts';

export interface ClusterUnderTest {
  app: { url: string };
  dataDir: string;
  temporalAddress: string;
  banner: string;
  prisma: PrismaClient;
}

export function useSharedCluster(): ClusterUnderTest {
  const shared = inject('cluster');
  const cluster: ClusterUnderTest = { ...shared, app: { url: shared.url }, prisma: undefined! };
  beforeAll(() => {
    cluster.prisma = createPrisma(shared.databaseUrl);
  });
  afterAll(() => cluster.prisma?.$disconnect());
  return cluster;
}

export interface ClusterDeveloper {
  key: string;
  accountId: string;
}

/** A developer of the cluster with `amount` micro-USD (default 5.00), made in beforeAll. */
export function useClusterDeveloper(cluster: ClusterUnderTest, amount = 5_000_000n): ClusterDeveloper {
  const developer = {} as ClusterDeveloper;
  beforeAll(async () => {
    const created = await createDeveloperWithKey(cluster.prisma);
    Object.assign(developer, { key: created.apiKey.key, accountId: created.developerId });
    await credit(cluster.prisma, {
      accountId: developer.accountId,
      amount,
      kind: 'adjustment',
      idempotencyKey: `topup:${developer.accountId}`,
    });
  });
  return developer;
}
