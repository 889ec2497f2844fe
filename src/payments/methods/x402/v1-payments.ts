// x402 v1 on the wire: the offers a v1 client reads at the top level of a 402 body (our v2 `exact` offers on the
// networks v1 can name, `maxAmountRequired` for `amount`), and the v1 payload it sends under X-PAYMENT: who pays, and
// which of our offers it takes. v1 payloads claim only a scheme and a network; the facilitator checks the rest.
import type { Network, PaymentRequired, PaymentRequirements } from '@x402/core/types';
import type { PaymentPayloadV1, PaymentRequirementsV1 } from '@x402/core/types/v1';
import { isEIP3009Payload, type ExactEvmPayloadV1 } from '@x402/evm';
import { isAddress } from 'viem';
import { eip3009Identity } from './payment-header.ts';
import { networkOfV1Name, v1NetworkName } from './v1-networks.ts';

/** What a v1 client validates (its optional `outputSchema` left out). */
export type RequirementsV1 = Omit<PaymentRequirementsV1, 'outputSchema'>;

/** The v1 form of our offers, in the same order: `exact` only (v1 has no `upto`), on the networks v1 can name. */
export function v1Accepts(required: PaymentRequired): RequirementsV1[] {
  return required.accepts.flatMap((offer): RequirementsV1[] => {
    const network = v1NetworkName(offer.network);
    if (offer.scheme !== 'exact' || !network) return [];
    return [
      {
        scheme: 'exact',
        network: network as Network,
        maxAmountRequired: offer.amount,
        resource: required.resource.url,
        description: required.resource.description ?? '',
        mimeType: required.resource.mimeType ?? '',
        payTo: offer.payTo,
        maxTimeoutSeconds: offer.maxTimeoutSeconds,
        asset: offer.asset,
        extra: { name: offer.extra.name, version: offer.extra.version },
      },
    ];
  });
}

/** The 402 body's top level as a v1 client reads it (`error` is the body's own code). */
export const v1PaymentRequired = (required: PaymentRequired) => ({ x402Version: 1, accepts: v1Accepts(required) });

/** The EIP-3009 authorization of a v1 `exact` payload; null for anything else. */
function authorizationOf(payload: PaymentPayloadV1): ExactEvmPayloadV1['authorization'] | null {
  const inner = payload.payload;
  if (payload.scheme !== 'exact' || typeof inner !== 'object' || inner === null) return null;
  if (!isEIP3009Payload(inner as unknown as ExactEvmPayloadV1)) return null;
  const { authorization } = inner as unknown as ExactEvmPayloadV1;
  return typeof authorization === 'object' && authorization !== null ? authorization : null;
}

const decimal = /^\d+$/;

/**
 * Who pays with a v1 payload, as a v2 one says it: its network as `eip155:<chain id>`, and the asset the chain's offer
 * names (`assetOf`; a v1 payload names none). Null for a payload we cannot take.
 */
export function v1Identity(payload: PaymentPayloadV1, assetOf: (network: Network) => string | undefined) {
  const network = networkOfV1Name(payload.network);
  const asset = network && assetOf(network);
  if (!network || !asset || !isAddress(asset, { strict: false })) return null;
  return eip3009Identity(authorizationOf(payload), network, asset);
}

/**
 * The offer a v1 payload takes (same scheme and network, its authorization to our payTo for exactly the amount), in
 * both forms: v2 for our records, v1 for the facilitator. Null when none.
 */
export function matchV1Requirement(
  required: PaymentRequired,
  payload: PaymentPayloadV1,
): { offer: PaymentRequirements; requirement: RequirementsV1 } | null {
  const authorization = authorizationOf(payload);
  const network = networkOfV1Name(payload.network);
  if (!authorization || !network) return null;
  const offer = required.accepts.find(
    (candidate) =>
      candidate.scheme === payload.scheme &&
      candidate.network === network &&
      typeof authorization.value === 'string' &&
      decimal.test(authorization.value) &&
      BigInt(authorization.value) === BigInt(candidate.amount) &&
      typeof authorization.to === 'string' &&
      authorization.to.toLowerCase() === candidate.payTo.toLowerCase(),
  );
  if (!offer) return null;
  const [requirement] = v1Accepts({ ...required, accepts: [offer] });
  return requirement ? { offer, requirement } : null;
}
