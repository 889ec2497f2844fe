// How a top-up is answered (POST /agents/topup, /account/topup, and a paid registration): settled, with the balance
// after it and its signed receipt (also in the headers its method answers it in); or still settling.
import { getAccountSummary } from '../../../accounts/accounts.ts';
import { formatUsd } from '../../../domain/money.ts';
import type { TopUpRow } from '../../../payments/methods/payment-method.ts';
import { topUpsOf } from '../../../use-cases/top-ups/top-up.ts';
import { apiUrlBase } from '../../../config/config.ts';
import type { ApiContext } from '../../endpoint.ts';

export async function topUpAnswer(ctx: ApiContext, topUp: TopUpRow, resourceUrl: string) {
  const identity = { top_up_id: topUp.id, amount: formatUsd(topUp.amount), payer: topUp.payer, network: topUp.network };
  if (topUp.status !== 'settled' || !topUp.transaction) {
    const settling = { status: 'settling' as const, balance: null, transaction: null, receipt: null };
    return { settled: false, body: { ...identity, ...settling }, headers: {} };
  }
  const signer = await ctx.signers.receipts(apiUrlBase(resourceUrl));
  const { receipt, headers } = await topUpsOf(ctx.payments).receipt(signer, topUp, resourceUrl);
  const { balance } = await getAccountSummary(ctx.prisma, topUp.accountId);
  const { transaction } = topUp;
  return {
    settled: true,
    body: { ...identity, status: 'settled' as const, balance: formatUsd(balance), transaction, receipt },
    headers,
  };
}
