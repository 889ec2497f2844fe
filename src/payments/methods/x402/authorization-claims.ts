// One signed authorization pays for one thing: a task or a top-up, never both. Each keeps its own table, so whichever
// writes its row first takes the authorization, under one lock per authorization, and the other is refused.
import type { Prisma } from '../../../generated/prisma/client.ts';

export interface AuthorizationKey {
  network: string;
  asset: string;
  payer: string;
  nonce: string;
}

/** Serialises every claim of the authorization until the transaction ends. */
async function lockAuthorization(tx: Prisma.TransactionClient, key: AuthorizationKey) {
  const name = ['x402-authorization', key.network, key.asset, key.payer, key.nonce].join(':');
  await tx.$executeRaw`SELECT pg_advisory_xact_lock(hashtextextended(${name}, 0))`;
}

/** What else holds the authorization, after taking its lock: a top-up (for a task), or a task (for a top-up). */
export async function claimAuthorization(
  tx: Prisma.TransactionClient,
  key: AuthorizationKey,
  claimant: 'task' | 'top-up',
): Promise<string | null> {
  await lockAuthorization(tx, key);
  const { network, asset, payer, nonce } = key;
  const where = { network_asset_payer_nonce: { network, asset, payer, nonce } };
  if (claimant === 'task') return (await tx.x402TopUp.findUnique({ where, select: { id: true } }))?.id ?? null;
  return (await tx.x402Payment.findUnique({ where, select: { taskId: true } }))?.taskId ?? null;
}
