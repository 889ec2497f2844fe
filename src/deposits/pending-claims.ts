// An account's pending deposit claims: claims of hashes the gateway had no deposit of, each a look-up that lasts up to
// DEPOSIT_RECEIPT_WAIT_SECONDS (a random hash is one for ever unknown). Past the cap a new one is refused, 429 with
// Retry-After, so one account cannot keep the workers reading the chain for hashes that will never appear.
import type { PrismaClient } from '../db/prisma.ts';
import { DomainError } from '../domain/errors.ts';

export interface PendingClaimsCap {
  /** At most this many claims pending at once per account. */
  perAccount: number;
  /** How long an unknown hash is looked up: a claim older than that is no longer pending. */
  windowSeconds: number;
}

/**
 * Records the claim of a hash with no deposit yet, or refuses it when the account already has `perAccount` such
 * claims within the look-up window. A claim of a known deposit (pending, credited or refused) is never counted.
 */
export async function admitDepositClaim(
  prisma: PrismaClient,
  claim: { accountId: string; chain: string; txHash: string },
  cap: PendingClaimsCap,
): Promise<void> {
  const known = await prisma.deposit.findFirst({
    where: { chain: claim.chain, txHash: claim.txHash },
    select: { id: true },
  });
  if (known) return;
  const since = new Date(Date.now() - cap.windowSeconds * 1000);
  // The account's claims past the window go (a short list, so the table stays small).
  await prisma.depositClaim.deleteMany({ where: { accountId: claim.accountId, claimedAt: { lt: since } } });
  const pending = await prisma.$queryRaw<{ count: bigint }[]>`
    SELECT count(*) AS count FROM deposit_claims c
    WHERE c.account_id = ${claim.accountId} AND NOT (c.chain = ${claim.chain} AND c.tx_hash = ${claim.txHash})
      AND NOT EXISTS (SELECT 1 FROM deposits d WHERE d.chain = c.chain AND d.tx_hash = c.tx_hash)`;
  if (Number(pending[0]?.count ?? 0) >= cap.perAccount) {
    throw new DomainError(
      'rate_limited',
      `Too many deposit claims pending: at most ${cap.perAccount} transactions not yet found at once for this account; try again in ${cap.windowSeconds} s.`,
      { headers: { 'Retry-After': String(cap.windowSeconds) } },
    );
  }
  await prisma.depositClaim.upsert({
    where: { accountId_chain_txHash: claim },
    create: claim,
    update: {},
  });
}
