// A settled top-up's signed receipt: the amount credited, the transfer that paid it, and the top-up it names.
import { type JWSSignedReceipt, type JWSSigner, signReceipt } from '../../receipts/receipts.ts';
import type { X402TopUp } from '../../../generated/prisma/client.ts';

export function topUpReceipt(signer: JWSSigner, topUp: X402TopUp, resourceUrl: string): Promise<JWSSignedReceipt> {
  if (topUp.status !== 'settled' || !topUp.transaction || !topUp.settledAt)
    throw new Error(`top-up ${topUp.id} is ${topUp.status}: only a settled one has a receipt`);
  return signReceipt(signer, {
    kind: 'top_up',
    id: topUp.id,
    resourceUrl,
    payer: topUp.payer,
    network: topUp.network,
    transaction: topUp.transaction,
    amount: topUp.amount,
    issuedAt: topUp.settledAt,
  });
}
