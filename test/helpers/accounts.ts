import { randomBytes } from 'node:crypto';
import type { PrismaClient } from '../../src/db/prisma.ts';

/** A bare account with an empty balance row, for ledger tests that need no API key. */
export async function createFundedAccount(prisma: PrismaClient, kind: 'agent' | 'developer' = 'developer'): Promise<string> {
  const id = `${kind === 'agent' ? 'agt' : 'dev'}_${randomBytes(8).toString('hex')}`;
  await prisma.account.create({ data: { id, kind, name: `test ${id}`, tier: kind === 'developer' ? 'free' : null, balance: { create: {} } } });
  return id;
}
