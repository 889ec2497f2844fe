// The x402 payment requirements of one request: an `exact` (EIP-3009) USDC payment on each enabled chain, whose
// amount in the token's atomic units is the price in micro-USD (USDC has 6 decimals).
import { encodePaymentRequiredHeader } from '@x402/core/http';
import type { Network, PaymentRequired } from '@x402/core/types';
import type { Address, ChainSettings } from '../chain/settings.ts';

/** The EIP-712 domain of USDC (Circle's FiatToken v2, and the local test token): what EIP-3009 signatures name. */
const usdcDomain = { name: 'USD Coin', version: '2' };

export const networkOf = (chain: Pick<ChainSettings, 'chainId'>): Network => `eip155:${chain.chainId}`;

export function paymentRequirementsFor(input: {
  chains: ChainSettings[];
  payTo: Address;
  amountMicros: bigint;
  maxTimeoutSeconds: number;
  resource: { url: string; description: string; mimeType: string };
}): PaymentRequired {
  return {
    x402Version: 2,
    resource: input.resource,
    accepts: input.chains.map((chain) => ({
      scheme: 'exact',
      network: networkOf(chain),
      amount: input.amountMicros.toString(),
      asset: chain.usdcAddress,
      payTo: input.payTo,
      maxTimeoutSeconds: input.maxTimeoutSeconds,
      extra: { ...usdcDomain },
    })),
  };
}

/** The same requirements for the v2 `PAYMENT-REQUIRED` header (base64 JSON). */
export const paymentRequiredHeader = (required: PaymentRequired) => encodePaymentRequiredHeader(required);
