// How a top-up is answered (POST /agents/topup, /account/topup, and a paid registration): settled, with the balance
// after it and its signed receipt (also in PAYMENT-RESPONSE's offer-receipt extension); or still settling.
import { OFFER_RECEIPT } from '@x402/extensions/offer-receipt';
import { getAccountSummary } from '../../../accounts/accounts.ts';
import { formatUsd } from '../../../domain/money.ts';
import type { X402TopUp } from '../../../generated/prisma/client.ts';
import { paymentResponseHeaders } from '../../../payments/methods/x402/requirements.ts';
import { topUpReceipt } from '../../../payments/receipts/top-up-receipt.ts';
import { apiUrlBase } from '../../../config/config.ts';
import type { ApiContext } from '../../endpoint.ts';

export async function topUpAnswer(ctx: ApiContext, topUp: X402TopUp, resourceUrl: string) {
  const identity = { top_up_id: topUp.id, amount: formatUsd(topUp.amount), payer: topUp.payer, network: topUp.network };
  if (topUp.status !== 'settled' || !topUp.transaction) {
    const settling = { status: 'settling' as const, balance: null, transaction: null, receipt: null };
    return { settled: false, body: { ...identity, ...settling }, headers: {} };
  }
  const receipt = await topUpReceipt(await ctx.signers.receipts(apiUrlBase(resourceUrl)), topUp, resourceUrl);
  const { balance } = await getAccountSummary(ctx.prisma, topUp.accountId);
  const { network, payer, transaction } = topUp;
  return {
    settled: true,
    body: { ...identity, status: 'settled' as const, balance: formatUsd(balance), transaction, receipt },
    headers: paymentResponseHeaders({
      network,
      payer,
      transaction,
      extensions: { [OFFER_RECEIPT]: { info: { receipt } } },
    }),
  };
}
