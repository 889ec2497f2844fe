import { randomBytes } from 'node:crypto';
import { loadConfig } from '../../src/config.ts';
import type { PrismaClient } from '../../src/db/prisma.ts';
import { createDeveloper } from '../../src/services/accounts.ts';
import { registerAgent } from '../../src/services/registration.ts';

/** A bare account with an empty balance row, for ledger tests that need no API key. */
export async function createFundedAccount(
  prisma: PrismaClient,
  { kind = 'developer' }: { kind?: 'agent' | 'developer' } = {},
): Promise<string> {
  const id = `${kind === 'agent' ? 'agt' : 'dev'}_${randomBytes(8).toString('hex')}`;
  await prisma.account.create({
    data: { id, kind, name: `test ${id}`, tier: kind === 'developer' ? 'free' : null, balance: { create: {} } },
  });
  return id;
}

/** An agent registered through the real service, with its key (from a random client address by default). */
export async function createAgentWithKey(
  prisma: PrismaClient,
  { clientAddress = `198.51.100.${Math.floor(Math.random() * 250)}` }: { clientAddress?: string } = {},
) {
  return registerAgent(prisma, loadConfig({}, []), { agentName: 'test agent', clientAddress });
}

/** A developer created through the real service, with its key. */
export async function createDeveloperWithKey(
  prisma: PrismaClient,
  { tier = 'pro' }: { tier?: 'free' | 'starter' | 'pro' | 'enterprise' } = {},
) {
  return createDeveloper(prisma, { name: 'test developer', tier });
}
