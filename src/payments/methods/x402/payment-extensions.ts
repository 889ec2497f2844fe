// The x402 extensions every paid route of ours declares beside the Bazaar's description of it: payment-identifier
// (optional: a client's id for its payment names a retry, read back here), and for a top-up its own Bazaar entry.
import type { PaymentPayload } from '@x402/core/types';
import { bazaarResourceServerExtension, BAZAAR, declareDiscoveryExtension } from '@x402/extensions/bazaar';
import {
  declarePaymentIdentifierExtension,
  extractPaymentIdentifier,
  PAYMENT_IDENTIFIER,
} from '@x402/extensions/payment-identifier';
import { type AnyPaymentPayload, isV1Payload } from './payment-header.ts';

/** payment-identifier, not required: a client that sends one gets the same task or top-up for a retry. */
export const paymentIdentifierDeclaration = () => ({ [PAYMENT_IDENTIFIER]: declarePaymentIdentifierExtension(false) });

/** The client's payment identifier, where its v2 payload carries a valid one (v1 has no extensions). */
export const paymentIdOf = (payload: AnyPaymentPayload): string | null =>
  isV1Payload(payload) ? null : extractPaymentIdentifier(payload as PaymentPayload);

const topUpOutput = {
  type: 'object',
  properties: {
    top_up_id: { type: 'string' },
    status: { type: 'string', enum: ['settled', 'settling'] },
    amount: { type: 'string', description: 'USD credited' },
    balance: { type: 'string', description: 'USD, after the credit' },
    transaction: { type: 'string' },
    receipt: { type: 'object', description: "x402 offer-receipt extension's signed receipt (JWS)" },
  },
  required: ['top_up_id', 'status', 'amount'],
};

/** The extensions of a top-up's offer at `resourceUrl`. */
export function paymentDiscoveryExtensions(resourceUrl: string): Record<string, unknown> {
  const declared = declareDiscoveryExtension({
    bodyType: 'json',
    input: { amount: '5.00' },
    inputSchema: {
      type: 'object',
      properties: { amount: { type: 'string', description: 'USD to credit, e.g. "5.00"' } },
      required: ['amount'],
    },
    output: { example: { top_up_id: 'top_…', status: 'settled', amount: '5.00' }, schema: topUpOutput },
  });
  const request = { method: 'POST', adapter: { getPath: () => new URL(resourceUrl).pathname } };
  return {
    [BAZAAR.key]: bazaarResourceServerExtension.enrichDeclaration!(declared[BAZAAR.key], request),
    ...paymentIdentifierDeclaration(),
  };
}
