// What a paid request answers with before it is paid (HTTP 402): one x402 v2 `exact` offer per enabled chain, in
// the chain's USDC, then one `upto` offer per chain whose facilitator settles it. Prices are micro-USD, which are
// USDC's atomic units (6 decimals), so the amount is the price (for `upto`, the most it can cost).
import { encodePaymentRequiredHeader, encodePaymentResponseHeader } from '@x402/core/http';
import type { Network, PaymentRequired, PaymentRequirements } from '@x402/core/types';
import type { Address, ChainSettings } from '../../../chain/settings.ts';
import { testUsdc } from '../../../chain/test-usdc.ts';
import { v1NetworkName } from './v1-networks.ts';

export const x402Version = 2;
export const paymentRequiredHeaderName = 'PAYMENT-REQUIRED';

/** USDC's EIP-712 domain name and version (Circle's FiatToken v2, and the local test token): what EIP-3009 signs. */
export const usdcEip712 = { name: testUsdc.name, version: testUsdc.version } as const;

/** x402 v2 names an EVM network by CAIP-2: `eip155:<chainId>`. */
export const networkOf = (chain: Pick<ChainSettings, 'chainId'>): Network => `eip155:${chain.chainId}`;

export interface PaymentRequirementsOptions {
  chains: ChainSettings[];
  payTo: Address;
  amountMicros: bigint;
  maxTimeoutSeconds: number;
  resource: { url: string; description: string; mimeType: string };
  /** Where `upto` is offered: the facilitator address a payer's Permit2 witness must name, per network. */
  uptoFacilitators?: ReadonlyMap<Network, Address>;
  /** x402 v2 extensions of the offers (the Bazaar's discovery); v1 has none. */
  extensions?: Record<string, unknown>;
}

export function paymentRequirementsFor(options: PaymentRequirementsOptions): PaymentRequired {
  if (options.chains.length === 0) throw new Error('no chain to be paid on: x402 needs at least one enabled chain');
  if (options.amountMicros <= 0n) throw new RangeError(`an x402 price must be positive, got ${options.amountMicros}`);
  if (!Number.isSafeInteger(options.maxTimeoutSeconds) || options.maxTimeoutSeconds <= 0) {
    throw new RangeError(`maxTimeoutSeconds must be a positive integer, got ${options.maxTimeoutSeconds}`);
  }
  const offer = (chain: ChainSettings) => ({
    network: networkOf(chain),
    amount: options.amountMicros.toString(),
    asset: chain.usdcAddress,
    payTo: options.payTo,
    maxTimeoutSeconds: options.maxTimeoutSeconds,
  });
  const exact = options.chains.map((chain): PaymentRequirements => ({
    scheme: 'exact',
    ...offer(chain),
    extra: { ...usdcEip712 },
  }));
  // After every `exact` offer: a client that takes the first offer it can pay keeps paying exactly the price.
  const upto = options.chains.flatMap((chain): PaymentRequirements[] => {
    const facilitatorAddress = options.uptoFacilitators?.get(networkOf(chain));
    if (!facilitatorAddress) return [];
    return [
      {
        scheme: 'upto',
        ...offer(chain),
        extra: { ...usdcEip712, assetTransferMethod: 'permit2', facilitatorAddress },
      },
    ];
  });
  const extensions = options.extensions ? { extensions: options.extensions } : {};
  return { x402Version, resource: { ...options.resource }, accepts: [...exact, ...upto], ...extensions };
}

/** The `PAYMENT-REQUIRED` header's value: the object as base64 JSON. */
export function paymentRequiredHeader(required: PaymentRequired): string {
  return encodePaymentRequiredHeader(required);
}

/**
 * The x402 settlement answer of a settled task, in both header names: its payer reads it on GET. v1's
 * `X-PAYMENT-RESPONSE` names the network as v1 does (`base-sepolia`), where v1 has a name for it.
 */
export function paymentResponseHeaders(payment: {
  network: string;
  payer: string;
  transaction: string;
  /** Extensions' answers (offer-receipt's signed receipt). */
  extensions?: Record<string, unknown>;
}): Record<string, string> {
  const response = (network: string) =>
    encodePaymentResponseHeader({
      success: true,
      transaction: payment.transaction,
      network: network as Network,
      payer: payment.payer,
      ...(payment.extensions && { extensions: payment.extensions }),
    });
  return {
    'PAYMENT-RESPONSE': response(payment.network),
    'X-PAYMENT-RESPONSE': response(v1NetworkName(payment.network) ?? payment.network),
  };
}
