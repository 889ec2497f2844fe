// x402's part in admitting a task: what a request must pay (the requirements: one `exact` USDC offer per enabled chain,
// to X402_PAY_TO, at admission's own price, in v2's form and v1's) and whether the payment it carries pays it. One
// authorization, or the client's payment id, names one task (its id derives from it), so a retried payment finds its
// task; the money moves only on delivery.
import type { PaymentRequired, PaymentRequirements } from '@x402/core/types';
import {
  createJWSOfferReceiptIssuer,
  createOfferReceiptExtension,
  OFFER_RECEIPT,
} from '@x402/extensions/offer-receipt';
import type { CatalogModel } from '../../../catalog/catalog.ts';
import { type ChainSettings, enabledChains } from '../../../chain/settings.ts';
import { apiUrlBase, type Config } from '../../../config/config.ts';
import type { Signers } from '../../receipts/receipts.ts';
import { FieldError, PaymentRequiredError } from '../../../domain/errors.ts';
import { secretDerivedId } from '../../../domain/ids.ts';
import { formatUsd } from '../../../domain/money.ts';
import { walletAccountId, type X402Authorization } from './paid-tasks.ts';
import type { PaymentFacilitator } from './facilitator.ts';
import {
  type AnyPaymentPayload,
  isV1Payload,
  matchRequirement,
  PaymentHeaderError,
  type PaymentIdentity,
  paymentIdentity,
  readPaymentHeader,
  type RequestHeaders,
} from './payment-header.ts';
import { generationDiscovery } from './bazaar.ts';
import { paymentIdentifierDeclaration, paymentIdOf } from './payment-extensions.ts';
import { networkOf, paymentRequiredHeader, paymentRequirementsFor } from './requirements.ts';
import { matchV1Requirement, type RequirementsV1, v1Identity, v1PaymentRequired } from './v1-payments.ts';

/**
 * How long an authorization must stay valid beyond the task's run (the model's timeout, and the wait for a provider
 * slot before it): collecting the outputs (up to ten minutes), then settling. Offered as `maxTimeoutSeconds`; at
 * admission at least the collection and a minute.
 */
const collectionSeconds = 600;
const settlementSeconds = 300;
const minimumSettlementSeconds = 60;

export interface X402Deps {
  config: Pick<Config, 'inputs' | 'providers' | 'x402' | 'chains'>;
  /** Verifies payments; made on first use. */
  facilitator: () => PaymentFacilitator;
  /** Signs offers (with the offer key, never the receipt key); none: the offers go unsigned. */
  signers?: Pick<Signers, 'offers'>;
}

/** The payment a request carries: none, one whose header cannot be read, or a payload (and who pays, if it says). */
export type OfferedPayment =
  | { state: 'none' }
  | { state: 'unreadable'; error: PaymentHeaderError }
  | { state: 'offered'; payload: AnyPaymentPayload; identity: PaymentIdentity | null };

/** Who pays: a v1 payload names no asset, so it is the one our offer on its network names (that chain's USDC). */
function identityOf(config: Pick<Config, 'chains'>, payload: AnyPaymentPayload): PaymentIdentity | null {
  if (!isV1Payload(payload)) return paymentIdentity(payload);
  const chains = enabledChains(config.chains);
  return v1Identity(payload, (network) => chains.find((chain) => networkOf(chain) === network)?.usdcAddress);
}

/** Read now, refused later: a refusal carries the requirements, which need the request's price. */
export function offeredPayment(config: Pick<Config, 'chains'>, headers: RequestHeaders): OfferedPayment {
  try {
    const paid = readPaymentHeader(headers);
    if (!paid) return { state: 'none' };
    return { state: 'offered', payload: paid.payload, identity: identityOf(config, paid.payload) };
  } catch (error) {
    if (!(error instanceof PaymentHeaderError)) throw error;
    return { state: 'unreadable', error };
  }
}

/**
 * The task a payment names, whoever sends it and however often, and its payer's wallet account: by the client's
 * payment id where it gives one (every payment of the payer under it is one task, as with an Idempotency-Key), else by
 * the authorization. Keyed with a server secret: payer, nonce and network are public once settled; the id names files.
 */
export const paidTask = (secret: string, identity: PaymentIdentity, paymentId: string | null = null) => ({
  taskId: secretDerivedId(
    'gen',
    secret,
    (paymentId
      ? ['x402-payment-id', identity.payer, paymentId]
      : ['x402', identity.network, identity.asset, identity.payer, identity.nonce]
    ).join('\n'),
  ),
  accountId: walletAccountId(identity.payer),
});

const signatureOf = (payload: AnyPaymentPayload) => (payload.payload as { signature?: unknown }).signature;

/** Only the same signed authorization finds its task: nobody else can claim a payer's task by its nonce. */
export const sameAuthorization = (stored: object, payload: AnyPaymentPayload) =>
  signatureOf(stored as AnyPaymentPayload) === signatureOf(payload);

/**
 * The longest a task's run may last: the model's timeout, which all its routes share, and a wait for a provider slot
 * on each route it may take (the model's own and every fallback), none of which counts against that timeout.
 */
const runSeconds = (config: Pick<Config, 'providers'>, model: Pick<CatalogModel, 'timeout_seconds' | 'fallbacks'>) =>
  config.providers.queueTimeoutSeconds * (1 + (model.fallbacks?.length ?? 0)) + model.timeout_seconds;

/**
 * Where `upto` can be offered, when configured: the facilitator's own answer. A facilitator that cannot say (an
 * external one unreachable) leaves the `exact` offers, which need nothing of it before settlement.
 */
async function uptoOffers(deps: X402Deps) {
  if (!deps.config.x402.schemes.includes('upto')) return undefined;
  return deps
    .facilitator()
    .uptoFacilitators()
    .catch(() => undefined);
}

/**
 * A verified payment as the task's workflow carries it (and settles it once the task has delivered). `requirement` is
 * what the facilitator is given (v1's form for a v1 payload); `offer`, our v2 offer it pays, when they differ.
 */
export function paymentAuthorization(
  config: Pick<Config, 'x402'>,
  paid: {
    identity: PaymentIdentity;
    requirement: PaymentRequirements | RequirementsV1;
    offer?: PaymentRequirements;
    payload: AnyPaymentPayload;
  },
): X402Authorization {
  const { identity, requirement } = paid;
  const offer = paid.offer ?? (requirement as PaymentRequirements);
  const paymentId = paymentIdOf(paid.payload);
  return {
    scheme: offer.scheme,
    network: identity.network,
    asset: identity.asset,
    payer: identity.payer,
    payTo: offer.payTo.toLowerCase(),
    nonce: identity.nonce,
    amount: offer.amount,
    validBefore: identity.validBefore.toString(),
    payload: paid.payload,
    requirement,
    maxTasksInFlight: config.x402.maxTasksPerPayer,
    ...(paymentId && { paymentId }),
  };
}

/** The offer a payload pays: the same object for v2; for v1, our offer and its v1 form (what the facilitator checks). */
export function matchOffer(
  required: PaymentRequired,
  payload: AnyPaymentPayload,
): { offer: PaymentRequirements; requirement: PaymentRequirements | RequirementsV1 } | null {
  if (isV1Payload(payload)) return matchV1Requirement(required, payload);
  const offer = matchRequirement(required.accepts, payload);
  return offer && { offer, requirement: offer };
}

/** What a payment offers to pay, in the token's base units (USDC's: micro-USD); null when it does not say. */
function offeredMicros(payload: AnyPaymentPayload): bigint | null {
  const amount = isV1Payload(payload)
    ? (payload.payload as { authorization?: { value?: unknown } }).authorization?.value
    : payload.accepted.amount;
  return typeof amount === 'string' && /^\d+$/.test(amount) ? BigInt(amount) : null;
}

/** The chains a model can be paid on with x402: none is a 400 naming the model, before anything else is done. */
export function payableChains(config: Pick<Config, 'chains'>, model: Pick<CatalogModel, 'id' | 'supports_x402'>) {
  const chains = enabledChains(config.chains);
  if (!model.supports_x402 || chains.length === 0) {
    throw new FieldError('model', `${model.id} cannot be paid with x402 on this server; send an API key`);
  }
  return chains;
}

type Priced = {
  model: Pick<CatalogModel, 'id' | 'name' | 'type' | 'supports_x402' | 'timeout_seconds'>;
  costMicros: bigint;
};

/** What an x402 offer is for: its price, how long an authorization must last, and what it pays for. */
export interface OfferTerms {
  chains: ChainSettings[];
  amountMicros: bigint;
  maxTimeoutSeconds: number;
  resource: { url: string; description: string; mimeType: string };
  /** Whether `upto` may be offered beside `exact` (a top-up credits exactly what it pays: no). */
  upto: boolean;
  /** The Bazaar's description, and any other extension of the offers. */
  extensions?: Record<string, unknown>;
}

/** The signed offers of x402's offer-receipt extension, where the server signs them. */
async function signedOffers(deps: X402Deps, required: PaymentRequired) {
  if (!deps.signers) return undefined;
  const signer = await deps.signers.offers(apiUrlBase(required.resource.url));
  const extension = createOfferReceiptExtension(createJWSOfferReceiptIssuer(signer.kid, signer));
  const context = { paymentRequiredResponse: required, requirements: required.accepts };
  return extension.enrichPaymentRequiredResponse!({}, context as never) as Promise<object | undefined>;
}

/** The offers for these terms, and a 402 refusal naming them (and why the payment did not do). */
export async function offerFor(deps: X402Deps, terms: OfferTerms) {
  const unsigned = paymentRequirementsFor({
    chains: terms.chains,
    payTo: deps.config.x402.payTo,
    amountMicros: terms.amountMicros,
    maxTimeoutSeconds: terms.maxTimeoutSeconds,
    resource: terms.resource,
    uptoFacilitators: terms.upto ? await uptoOffers(deps) : undefined,
    extensions: terms.extensions,
  });
  const offers = await signedOffers(deps, unsigned);
  const required: PaymentRequired = offers
    ? { ...unsigned, extensions: { ...unsigned.extensions, [OFFER_RECEIPT]: offers } }
    : unsigned;
  const refuse = (message: string, reason?: string) => {
    const answer = reason ? { ...required, error: reason } : required;
    return new PaymentRequiredError(
      message,
      terms.amountMicros,
      answer,
      paymentRequiredHeader(answer),
      v1PaymentRequired(required),
    );
  };
  return { required, refuse };
}

/** What the price asks for, and a 402 refusal naming it (and why the payment did not do). */
function requirementsOf(deps: X402Deps, { model, costMicros }: Priced, resourceUrl: string) {
  return offerFor(deps, {
    chains: payableChains(deps.config, model),
    amountMicros: costMicros,
    maxTimeoutSeconds: runSeconds(deps.config, model) + collectionSeconds + settlementSeconds,
    resource: { url: resourceUrl, description: `${model.name} (${model.id})`, mimeType: 'application/json' },
    upto: true,
    // A client's payment id names its task: a payment signed anew under it is a retry, not a second task.
    extensions: { ...generationDiscovery({ type: model.type, model: model.id }), ...paymentIdentifierDeclaration() },
  });
}

export type Refuse = (message: string, reason?: string) => Error;

/** The payload of a readable payment; none, or one that cannot be read, is a 402. */
export function offeredPayload(offered: OfferedPayment, costMicros: bigint, refuse: Refuse, noneMessage?: string) {
  if (offered.state === 'unreadable') {
    const { headerName, code } = offered.error;
    throw refuse(`The ${headerName} header could not be read (${code}); pay again.`, code);
  }
  if (offered.state === 'none') {
    if (noneMessage) throw refuse(noneMessage);
    throw refuse(
      `This generation costs $${formatUsd(costMicros)}: pay it with x402 (the requirements are in this answer and ` +
        'its PAYMENT-REQUIRED header), or send an API key.',
    );
  }
  return offered;
}

export const mismatch =
  'The payment does not pay these requirements (its scheme, network, amount, asset or recipient differ); pay again.';

export async function verified(
  deps: X402Deps,
  payload: AnyPaymentPayload,
  requirement: PaymentRequirements | RequirementsV1,
  refuse: Refuse,
) {
  const verdict = await deps.facilitator().verify(payload, requirement);
  if (!verdict.isValid) {
    const reason = verdict.invalidReason ?? 'invalid_payment';
    throw refuse(`The payment was refused: ${reason}. Nothing was charged.`, reason);
  }
}

/**
 * Before a model priced on its inputs' length downloads them: the payment must offer at least `leastMicros` (what the
 * shortest input costs) and be one its payer can make good, so it is verified at the amount it offers (the price of
 * the measured inputs is matched after, by authorizePayment).
 */
export async function verifyAtOfferedAmount(
  deps: X402Deps,
  declared: Priced,
  offered: OfferedPayment,
  options: { resourceUrl: string; leastMicros: bigint },
): Promise<void> {
  const { resourceUrl, leastMicros } = options;
  const { refuse } = await requirementsOf(deps, declared, resourceUrl);
  const { payload } = offeredPayload(offered, declared.costMicros, refuse);
  const amount = offeredMicros(payload);
  // Verification moves nothing: a payment of one unit, replayed, would otherwise make every call download for free.
  if (amount === null || amount < leastMicros) {
    throw refuse(
      `The payment offers less than this request costs at the least ($${formatUsd(leastMicros)}, its shortest ` +
        'input); pay the requirements in this answer.',
      'payment_requirements_mismatch',
    );
  }
  const atOffer = await requirementsOf(deps, { ...declared, costMicros: amount }, resourceUrl);
  const matched = matchOffer(atOffer.required, payload);
  if (!matched) throw refuse(mismatch, 'payment_requirements_mismatch');
  await verified(deps, payload, matched.requirement, refuse);
}

/**
 * The payment that pays this price, or a 402 naming the requirements (and why the payment did not do). `verified`: its
 * task was admitted with it already (a retry), so it is not verified again: it has not moved since.
 */
export async function authorizePayment(
  deps: X402Deps,
  priced: Priced,
  offered: OfferedPayment,
  options: { resourceUrl: string; verified: boolean },
): Promise<{ identity: PaymentIdentity; authorization: X402Authorization }> {
  const { model, costMicros } = priced;
  const { required, refuse } = await requirementsOf(deps, priced, options.resourceUrl);
  const { payload, identity } = offeredPayload(offered, costMicros, refuse);
  const matched = matchOffer(required, payload);
  if (!matched || !identity) throw refuse(mismatch, 'payment_requirements_mismatch');
  const authorization = paymentAuthorization(deps.config, { identity, ...matched, payload });
  if (options.verified) return { identity, authorization };

  await verified(deps, payload, matched.requirement, refuse);
  // A task must be able to settle after it ran: an authorization that expires sooner would make it work for free.
  const neededSeconds = runSeconds(deps.config, model) + collectionSeconds + minimumSettlementSeconds;
  const validSeconds = Number(identity.validBefore) - Math.floor(Date.now() / 1000);
  if (validSeconds < neededSeconds) {
    throw refuse(
      `The authorization is valid for ${validSeconds} more seconds; this model needs ${neededSeconds} to run and settle ` +
        `(sign it for maxTimeoutSeconds). Nothing was charged.`,
      'authorization_window_too_short',
    );
  }
  return { identity, authorization };
}
