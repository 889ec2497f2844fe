import { randomBytes } from 'node:crypto';
import { loadConfig } from '../../src/config/config.ts';
import type { PrismaClient } from '../../src/db/prisma.ts';
import { createDeveloper } from '../../src/accounts/accounts.ts';
import { credit } from '../../src/ledger/ledger.ts';
import { registerAgent } from '../../src/accounts/registration.ts';

/** An account without an API key, for ledger tests: its balance row empty, or holding a `deposit` (micro-USD). */
export async function createFundedAccount(
  prisma: PrismaClient,
  { kind = 'developer', deposit }: { kind?: 'agent' | 'developer'; deposit?: bigint } = {},
): Promise<string> {
  const id = `${kind === 'agent' ? 'agt' : 'dev'}_${randomBytes(8).toString('hex')}`;
  await prisma.account.create({
    data: { id, kind, name: `test ${id}`, tier: kind === 'developer' ? 'free' : null, balance: { create: {} } },
  });
  if (deposit)
    await credit(prisma, { accountId: id, amount: deposit, kind: 'deposit', idempotencyKey: `deposit:${id}` });
  return id;
}

/** An agent registered through the real service, with its key (from a random client address by default). */
export async function createAgentWithKey(
  prisma: PrismaClient,
  { clientAddress = `198.51.100.${Math.floor(Math.random() * 250)}` }: { clientAddress?: string } = {},
) {
  return registerAgent(prisma, loadConfig({}, []), {
    agentName: 'test agent',
    clientAddress,
    trialNetwork: clientAddress,
  });
}

/** A developer created through the real service, with its key. */
export async function createDeveloperWithKey(
  prisma: PrismaClient,
  { tier = 'pro' }: { tier?: 'free' | 'starter' | 'pro' | 'enterprise' } = {},
) {
  return createDeveloper(prisma, { name: 'test developer', tier });
}
