// The OAuth sweep's activity: a thin wrapper over src/accounts/oauth/grant-sweep. Idempotent: a retried page finds
// what it swept gone, and revoking a revoked key keeps the first time.
import type { PrismaClient } from '../src/db/prisma.ts';
import { sweepOAuthGrants } from '../src/accounts/oauth/grant-sweep.ts';
import { classifyFailures } from './failures.ts';

export interface OAuthActivityDeps {
  prisma: PrismaClient;
}

export function createOAuthActivities(deps: OAuthActivityDeps) {
  return classifyFailures({
    async sweepOAuthGrants(input: { limit: number }): Promise<{ deleted: string[] }> {
      return { deleted: await sweepOAuthGrants(deps.prisma, input.limit) };
    },
  });
}

export type OAuthActivities = ReturnType<typeof createOAuthActivities>;
