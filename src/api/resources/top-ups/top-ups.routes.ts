// POST /agents/topup and /account/topup: a balance topped up with an x402 payment (a 402 offers the amount; paid, it
// is settled and credited once). The answer carries the signed receipt, in the body and in PAYMENT-RESPONSE.
import { publicApiUrl } from '../../../config/config.ts';
import { FieldError } from '../../../domain/errors.ts';
import { topUpBalance, topUpsOf } from '../../../use-cases/top-ups/top-up.ts';
import { topUpAnswer } from './top-up-answer.ts';
import { defineEndpoint } from '../../endpoint.ts';
import { ApiError } from '../../errors.ts';
import { examplePaymentProbe } from '../../discovery/payment-probe.ts';
import { TopUpRequestSchema, TopUpResponseSchema } from './top-ups.schemas.ts';

/** What a paymentless probe is offered (the Bazaar's example top-up is the same $5, in the method's discovery). */
const exampleTopUp = 5_000_000n;

const wrongKind = {
  agent: 'This top-up is for an agent key (rf_…); developers top up with POST /api/v1/account/topup.',
  developer: 'This top-up is for a developer key (sk_… or vega_…); agents top up with POST /api/v1/agents/topup.',
} as const;

const topUpEndpoint = (options: { path: string; operationId: string; kind: 'agent' | 'developer'; tag: string }) =>
  defineEndpoint({
    method: 'post',
    path: options.path,
    operationId: options.operationId,
    summary: 'Top up the balance with an x402 payment',
    description:
      "Tops up the calling account's balance with an x402 payment of `amount` (USD; 0.01 to 10000). Without a payment it answers **402** `payment_required` with an `exact` USDC offer for that amount on each enabled chain (body `requirements` and the `PAYMENT-REQUIRED` header, signed offers in its `offer-receipt` extension; `x402Version: 1` and `accepts` for v1 clients), so `@x402/fetch` pays it with no code of its own. Paid (`PAYMENT-SIGNATURE`, or v1's `X-PAYMENT`), the payment is verified, settled on chain by its own workflow and credited once, as a ledger entry of kind `x402_topup` naming the transaction: **200** with the new `balance`, the `transaction` and a signed `receipt` (also in the `PAYMENT-RESPONSE` header's `offer-receipt` extension). The same payment sent again, or another carrying the same x402 `payment-identifier`, answers the same top-up and credits nothing more; the same payment for another amount or account is 409 `conflict`. **202** `settling`: the transfer has not been confirmed within 30 seconds; call again with the same payment for the outcome.",
    tags: [options.tag],
    // Keyless, a top-up is only offered (a 402 Bazaar can list); paid, it needs the key of the account to credit.
    auth: 'any_or_keyless_payment',
    request: { body: TopUpRequestSchema },
    success: {
      status: 200,
      description: 'Settled and credited, with its signed receipt',
      schema: TopUpResponseSchema,
      alternative: { status: 202, description: 'Paid, the transfer still settling: call again with the same payment' },
    },
    errors: ['payment_required', 'forbidden', 'conflict', 'service_unavailable'],
    paymentProbe: examplePaymentProbe(() => ({ amount: exampleTopUp })),
    handleUnpaid: ({ body, ctx, call, base }) =>
      topUpsOf(ctx.payments).refuseKeyless(ctx, {
        amountMicros: body.amount,
        resourceUrl: publicApiUrl(base, options.path),
        headers: call.headers,
      }),
    handle: async ({ body, principal, ctx, call, base }) => {
      if (principal.account.kind !== options.kind) throw new ApiError('forbidden', wrongKind[options.kind]);
      if (!ctx.payments.topUps(ctx.config))
        throw new FieldError('amount', 'this server takes no x402 payments; deposit USDC instead');
      const resourceUrl = publicApiUrl(base, options.path);
      const topUp = await topUpBalance(ctx, {
        accountId: principal.account.id,
        amountMicros: body.amount,
        resourceUrl,
        headers: call.headers,
      });
      const answer = await topUpAnswer(ctx, topUp, resourceUrl);
      return { status: answer.settled ? 200 : 202, body: answer.body, headers: answer.headers };
    },
  });

export const topUpEndpoints = [
  topUpEndpoint({ path: '/agents/topup', operationId: 'topUpAgent', kind: 'agent', tag: 'Agents' }),
  topUpEndpoint({ path: '/account/topup', operationId: 'topUpAccount', kind: 'developer', tag: 'Account' }),
];
