// x402's top-ups as its method offers them (PaymentMethod.topUps): the use cases and the top-up workflow's activity
// reach them through the registry, never by name.
import { x402Offered } from '../../../chain/settings.ts';
import { OFFER_RECEIPT } from '@x402/extensions/offer-receipt';
import type { TopUps } from '../payment-method.ts';
import { paymentResponseHeaders } from './requirements.ts';
import { PaymentNotSettledError, type SettlementDeps } from './settlement.ts';
import { findUnsettledTopUps, settleTopUp } from './top-up-settlement.ts';
import { topUpReceipt } from './top-up-receipt.ts';
import { authorizeTopUp, refuseKeylessTopUp } from './top-ups.ts';
import { verifierOf, type X402MethodDeps } from './x402-deps.ts';

export const x402TopUps: TopUps<X402MethodDeps, SettlementDeps> = {
  offered: x402Offered,
  authorize: (deps, request) => authorizeTopUp({ ...verifierOf(deps), prisma: deps.prisma }, request),
  find: (prisma, topUpId) => prisma.x402TopUp.findUniqueOrThrow({ where: { id: topUpId } }),
  refuseKeyless: (deps, request) => refuseKeylessTopUp(verifierOf(deps), request),
  settle: settleTopUp,
  notSettled: (error) => (error instanceof PaymentNotSettledError ? error.reason : undefined),
  unsettled: findUnsettledTopUps,
  async receipt(signer, topUp, resourceUrl) {
    const receipt = await topUpReceipt(signer, topUp, resourceUrl);
    const { network, payer, transaction } = topUp;
    if (!transaction) throw new Error(`top-up ${topUp.id} has no transaction: only a settled one has a receipt`);
    const extensions = { [OFFER_RECEIPT]: { info: { receipt } } };
    return { receipt, headers: paymentResponseHeaders({ network, payer, transaction, extensions }) };
  },
};
