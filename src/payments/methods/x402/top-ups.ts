// Topping a balance up with x402: an `exact` offer for the amount asked, on each enabled chain; a verified payment is
// kept as a row (its id derives from the authorization, so the same payment always names the same top-up) and its
// workflow settles it, then credits the balance once. A client's payment identifier names a retry before the nonce.
import { enabledChains } from '../../../chain/settings.ts';
import type { PrismaClient } from '../../../db/prisma.ts';
import { DomainError, FieldError, PaymentReusedError } from '../../../domain/errors.ts';
import { secretDerivedId } from '../../../domain/ids.ts';
import { formatUsd } from '../../../domain/money.ts';
import { Prisma, type X402TopUp } from '../../../generated/prisma/client.ts';
import {
  matchOffer,
  mismatch,
  offeredPayload,
  offerFor,
  offeredPayment,
  type Refuse,
  sameAuthorization,
  verified,
  type X402Deps,
} from './admission.ts';
import { claimAuthorization } from './authorization-claims.ts';
import { authorizationDeadline } from './authorization.ts';
import { paymentDiscoveryExtensions, paymentIdOf } from './payment-extensions.ts';
import type { AnyPaymentPayload, PaymentIdentity } from './payment-header.ts';
import type { TopUpRequest } from '../payment-method.ts';

export type { TopUpRequest } from '../payment-method.ts';

/** Long enough to settle at once, and again after a crash: what the offer asks an authorization to last. */
const topUpTimeoutSeconds = 600;
const minimumValiditySeconds = 120;

/** The top-up an authorization names, whoever sends it and however often. */
const topUpId = (secret: string, identity: PaymentIdentity) =>
  secretDerivedId(
    'top',
    secret,
    ['x402-topup', identity.network, identity.asset, identity.payer, identity.nonce].join('\n'),
  );

/** The same top-up asked again: it must be for the same account and amount, or the payment is reused. */
function sameTopUp(row: X402TopUp, request: TopUpRequest): X402TopUp {
  // A paid registration asked again: its agent exists already (the caller says so once the top-up is settled).
  if (typeof request.accountId === 'function') return row;
  if (row.accountId !== request.accountId || row.amount !== request.amountMicros) throw new PaymentReusedError();
  return row;
}

/** A payment (or payment identifier of the same payer) seen before: the top-up it made. */
async function earlierTopUp(
  prisma: PrismaClient,
  request: TopUpRequest,
  paid: { payload: AnyPaymentPayload; identity: PaymentIdentity | null; id: string | null },
) {
  const paymentId = paymentIdOf(paid.payload);
  const byPaymentId =
    paymentId && paid.identity
      ? await prisma.x402TopUp.findUnique({ where: { payer_paymentId: { payer: paid.identity.payer, paymentId } } })
      : null;
  // A payment that failed frees its id for the next one ("pay again" under the same id); else the id names the top-up.
  if (byPaymentId?.status === 'failed' && !sameAuthorization(byPaymentId.payload as object, paid.payload))
    await prisma.x402TopUp.update({ where: { id: byPaymentId.id }, data: { paymentId: null } });
  else if (byPaymentId) return sameTopUp(byPaymentId, request);
  const byAuthorization = paid.id ? await prisma.x402TopUp.findUnique({ where: { id: paid.id } }) : null;
  if (!byAuthorization) return null;
  if (!sameAuthorization(byAuthorization.payload as object, paid.payload)) throw new PaymentReusedError();
  return sameTopUp(byAuthorization, request);
}

/**
 * The top-up this request's payment makes: refused with a 402 offering the amount while it carries no payment (or
 * one that does not pay it); the row found again for a retry. Nothing has moved when this returns.
 */
/** The `exact` offers of a top-up of `amountMicros` at `resourceUrl`, and a 402 refusal naming them. */
function topUpOffer(deps: X402Deps, amountMicros: bigint, resourceUrl: string) {
  const chains = enabledChains(deps.config.chains);
  if (chains.length === 0) throw new FieldError('amount', 'x402 top-ups need a chain: none is enabled on this server');
  return offerFor(deps, {
    chains,
    amountMicros,
    maxTimeoutSeconds: topUpTimeoutSeconds,
    resource: {
      url: resourceUrl,
      description: `Top up a balance by $${formatUsd(amountMicros)}`,
      mimeType: 'application/json',
    },
    upto: false,
    extensions: paymentDiscoveryExtensions(resourceUrl),
  });
}

const payToTopUp = (amountMicros: bigint) =>
  `Pay $${formatUsd(amountMicros)} with x402 to top up (the offer is in this answer and its PAYMENT-REQUIRED header).`;

/** A top-up asked without an API key: its offer (402), but a payment is not taken (whose balance would it credit?). */
export async function refuseKeylessTopUp(deps: X402Deps, request: Omit<TopUpRequest, 'accountId'>): Promise<never> {
  const { amountMicros, resourceUrl } = request;
  if (offeredPayment(deps.config, request.headers).state !== 'none')
    throw new DomainError(
      'unauthorized',
      'A top-up credits the account whose API key comes with the payment: send the key too. Nothing was charged.',
    );
  const { refuse } = await topUpOffer(deps, amountMicros, resourceUrl);
  throw refuse(`${payToTopUp(amountMicros)} Send it with the API key of the account to credit.`);
}

export async function authorizeTopUp(
  deps: X402Deps & { prisma: PrismaClient },
  request: TopUpRequest,
): Promise<{ topUp: X402TopUp; refuse: Refuse }> {
  const { required, refuse } = await topUpOffer(deps, request.amountMicros, request.resourceUrl);
  const offered = offeredPayment(deps.config, request.headers);
  const { payload, identity } = offeredPayload(offered, request.amountMicros, refuse, payToTopUp(request.amountMicros));
  const id = identity && topUpId(deps.config.x402.taskIdSecret, identity);
  const earlier = await earlierTopUp(deps.prisma, request, { payload, identity, id });
  if (earlier) return { topUp: earlier, refuse };
  const matched = matchOffer(required, payload);
  if (!matched || !identity || !id) throw refuse(mismatch, 'payment_requirements_mismatch');
  await verified(deps, payload, matched.requirement, refuse);
  const validSeconds = Number(identity.validBefore) - Math.floor(Date.now() / 1000);
  if (validSeconds < minimumValiditySeconds) {
    throw refuse(
      `The authorization is valid for ${validSeconds} more seconds; a top-up needs ${minimumValiditySeconds} to settle.`,
      'authorization_window_too_short',
    );
  }
  const topUp = await storeTopUp(deps.prisma, request, {
    id,
    identity,
    payTo: matched.offer.payTo.toLowerCase(),
    payload,
    requirement: matched.requirement,
    paymentId: paymentIdOf(payload),
  });
  return { topUp, refuse };
}

/** Writes the verified payment `authorized`; a concurrent twin of the same payment finds the row it wrote. */
async function storeTopUp(
  prisma: PrismaClient,
  request: TopUpRequest,
  paid: {
    id: string;
    identity: PaymentIdentity;
    payTo: string;
    payload: object;
    requirement: object;
    paymentId: string | null;
  },
): Promise<X402TopUp> {
  const { identity } = paid;
  try {
    return await prisma.$transaction(async (tx) => {
      // An authorization that pays a task pays for nothing else (the same lock as the task's admission takes).
      if (await claimAuthorization(tx, identity, 'top-up')) throw new PaymentReusedError();
      // A twin that held the lock first wrote the row (and made its account): this one writes and makes nothing.
      const twin = await tx.x402TopUp.findUnique({ where: { id: paid.id } });
      if (twin) return sameTopUp(twin, request);
      const accountId =
        typeof request.accountId === 'function' ? await request.accountId(tx, identity.payer) : request.accountId;
      return tx.x402TopUp.create({
        data: {
          id: paid.id,
          accountId,
          scheme: 'exact',
          network: identity.network,
          asset: identity.asset,
          payer: identity.payer,
          payTo: paid.payTo,
          nonce: identity.nonce,
          amount: request.amountMicros,
          validBefore: authorizationDeadline(identity.validBefore),
          payload: paid.payload,
          requirement: paid.requirement,
          paymentId: paid.paymentId,
        },
      });
    });
  } catch (error) {
    if (!(error instanceof Prisma.PrismaClientKnownRequestError) || error.code !== 'P2002') throw error;
    const samePaymentId = paid.paymentId ? [{ payer: identity.payer, paymentId: paid.paymentId }] : [];
    const row = await prisma.x402TopUp.findFirst({ where: { OR: [{ id: paid.id }, ...samePaymentId] } });
    if (!row) throw error;
    return sameTopUp(row, request);
  }
}
