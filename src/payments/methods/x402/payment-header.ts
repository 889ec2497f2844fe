// A paid request's payment: the x402 payload in `PAYMENT-SIGNATURE` or `X-PAYMENT` (v2, or v1's; v1 clients send
// X-PAYMENT), who pays with it, and which of our offers it claims to pay. The facilitator checks the signature and
// the transfer against the offer it is given, but not that the payload's own `accepted` is that offer: matchRequirement
// does.
import { decodePaymentSignatureHeader } from '@x402/core/http';
import { isPaymentPayloadV1, isPaymentPayloadV2 } from '@x402/core/schemas';
import type { Network, PaymentPayload, PaymentRequirements } from '@x402/core/types';
import type { PaymentPayloadV1 } from '@x402/core/types/v1';
import { isEIP3009Payload, isUptoPermit2Payload, type ExactEvmPayloadV2 } from '@x402/evm';
import { isAddress, isHex, type Address, type Hex } from 'viem';

export type PaymentHeaderName = 'PAYMENT-SIGNATURE' | 'X-PAYMENT';
/** In order of preference: the v2 name, then the v1 one. */
export const paymentHeaderNames: readonly PaymentHeaderName[] = ['PAYMENT-SIGNATURE', 'X-PAYMENT'];

export type PaymentHeaderErrorCode =
  /** Not base64 JSON, or not an x402 payment payload. */
  | 'malformed'
  /** A payload of another x402 version than 1 or 2. */
  | 'unsupported_version'
  /** Both header names, with different values. */
  | 'conflicting_headers';

export class PaymentHeaderError extends Error {
  override readonly name = 'PaymentHeaderError';
  constructor(
    readonly code: PaymentHeaderErrorCode,
    readonly headerName: PaymentHeaderName,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

/** Node's `IncomingHttpHeaders` (names lowercased) or a fetch `Headers`. */
export type RequestHeaders = Headers | Record<string, string | string[] | undefined>;

function headerValue(headers: RequestHeaders, name: string): string | undefined {
  if (typeof Headers !== 'undefined' && headers instanceof Headers) return headers.get(name) ?? undefined;
  const wanted = name.toLowerCase();
  for (const [key, value] of Object.entries(headers as Record<string, string | string[] | undefined>)) {
    if (key.toLowerCase() !== wanted || value === undefined) continue;
    return Array.isArray(value) ? value.join(', ') : value;
  }
  return undefined;
}

/** A payload as x402 v2 (`accepted`: the offer it pays) or v1 (only `scheme` and `network`) sends it. */
export type AnyPaymentPayload = PaymentPayload | PaymentPayloadV1;

export const isV1Payload = (payload: AnyPaymentPayload): payload is PaymentPayloadV1 => payload.x402Version === 1;

/**
 * The payment payload a request carries, or null when it carries none. Throws a PaymentHeaderError when the header
 * is there but is no x402 v2 or v1 payload.
 */
export function readPaymentHeader(
  headers: RequestHeaders,
): { payload: AnyPaymentPayload; headerName: PaymentHeaderName } | null {
  const present = paymentHeaderNames
    .map((headerName) => ({ headerName, value: headerValue(headers, headerName)?.trim() }))
    .filter((found): found is { headerName: PaymentHeaderName; value: string } => found.value !== undefined);
  const [first, second] = present;
  if (!first) return null;
  if (second && second.value !== first.value) {
    throw new PaymentHeaderError('conflicting_headers', first.headerName, 'PAYMENT-SIGNATURE and X-PAYMENT differ');
  }
  let decoded: unknown;
  try {
    decoded = decodePaymentSignatureHeader(first.value);
  } catch (error) {
    throw new PaymentHeaderError('malformed', first.headerName, `${first.headerName} is not base64 JSON`, {
      cause: error,
    });
  }
  const version =
    typeof decoded === 'object' && decoded !== null ? (decoded as { x402Version?: unknown }).x402Version : 2;
  if (version !== 1 && version !== 2 && version !== undefined) {
    throw new PaymentHeaderError(
      'unsupported_version',
      first.headerName,
      `${first.headerName} carries an x402 version ${String(version)} payload; versions 1 and 2 are accepted`,
    );
  }
  if (version === 1 ? !isPaymentPayloadV1(decoded) : !isPaymentPayloadV2(decoded)) {
    throw new PaymentHeaderError(
      'malformed',
      first.headerName,
      `${first.headerName} is not an x402 v${version ?? 2} payment payload`,
    );
  }
  return { payload: decoded as AnyPaymentPayload, headerName: first.headerName };
}

/** Who pays, with which one-time authorization: (network, asset, payer, nonce) names one payment for good. */
export interface PaymentIdentity {
  /** The authorization's `from` (EIP-3009, or the Permit2 owner of `upto`), lowercased. */
  payer: Address;
  /**
   * The one-time nonce: EIP-3009's 32 bytes as lowercase hex (the token refuses it twice), or Permit2's uint256 as a
   * decimal string (Permit2 refuses it twice).
   */
  nonce: string;
  network: Network;
  /** The token the payload says it pays in (`accepted.asset`), lowercased. */
  asset: Address;
  /** Unix seconds: the authorization cannot be settled from then on (EIP-3009 validBefore, Permit2 deadline). */
  validBefore: bigint;
}

const decimal = /^\d+$/;

/** The identity of an `upto` Permit2 payment; null when the payload is not one. */
function uptoIdentity(payload: PaymentPayload): PaymentIdentity | null {
  const inner = payload.payload;
  if (typeof inner !== 'object' || inner === null || !isUptoPermit2Payload(inner)) return null;
  const { from, nonce, deadline } = inner.permit2Authorization;
  if (!isAddress(from, { strict: false }) || !decimal.test(nonce) || !decimal.test(deadline)) return null;
  return {
    payer: from.toLowerCase() as Address,
    nonce: BigInt(nonce).toString(),
    network: payload.accepted.network,
    asset: payload.accepted.asset.toLowerCase() as Address,
    validBefore: BigInt(deadline),
  };
}

/** The identity of an `exact` (EIP-3009) or `upto` (Permit2) payment; null for any other or malformed payload. */
export function paymentIdentity(payload: PaymentPayload): PaymentIdentity | null {
  const { accepted } = payload;
  if (!isAddress(accepted.asset, { strict: false })) return null;
  if (accepted.scheme === 'upto') return uptoIdentity(payload);
  if (accepted.scheme !== 'exact') return null;
  const inner = payload.payload as unknown as ExactEvmPayloadV2;
  if (typeof inner !== 'object' || inner === null || !isEIP3009Payload(inner)) return null;
  return eip3009Identity(inner.authorization, accepted.network, accepted.asset);
}

/** Who signed an EIP-3009 authorization (v1's or v2's `exact`), paying in `asset` on `network`; null if malformed. */
export function eip3009Identity(authorization: unknown, network: Network, asset: string): PaymentIdentity | null {
  if (typeof authorization !== 'object' || authorization === null) return null;
  const { from, nonce, validBefore } = authorization as Record<string, unknown>;
  if (typeof from !== 'string' || !isAddress(from, { strict: false })) return null;
  if (typeof nonce !== 'string' || !isHex(nonce, { strict: true }) || nonce.length !== 66) return null;
  if (typeof validBefore !== 'string' || !decimal.test(validBefore)) return null;
  return {
    payer: from.toLowerCase() as Address,
    nonce: nonce.toLowerCase() as Hex,
    network,
    asset: asset.toLowerCase() as Address,
    validBefore: BigInt(validBefore),
  };
}

const sameAmount = (a: string, b: string) => decimal.test(a) && decimal.test(b) && BigInt(a) === BigInt(b);
const sameAddress = (a: string, b: string) =>
  isAddress(a, { strict: false }) && isAddress(b, { strict: false }) && a.toLowerCase() === b.toLowerCase();

/**
 * The one of our offers the payload claims to pay (its `accepted`: same scheme, network, amount, asset and payTo),
 * or null. Verify and settle against this offer, never against the payload's own copy.
 */
export function matchRequirement(
  accepts: readonly PaymentRequirements[],
  payload: PaymentPayload,
): PaymentRequirements | null {
  const claimed = payload.accepted;
  return (
    accepts.find(
      (offer) =>
        offer.scheme === claimed.scheme &&
        offer.network === claimed.network &&
        sameAmount(offer.amount, claimed.amount) &&
        sameAddress(offer.asset, claimed.asset) &&
        sameAddress(offer.payTo, claimed.payTo),
    ) ?? null
  );
}
