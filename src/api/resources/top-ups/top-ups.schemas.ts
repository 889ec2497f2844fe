import { moneyString, usdAmount } from '../../schemas/common.schemas.ts';
import { z } from '../../schemas/zod.ts';

/** At least a cent (an on-chain transfer for less costs more than it moves), at most what a balance may take at once. */
const leastTopUp = 10_000n;
const mostTopUp = 10_000_000_000n;

/** USD to top a balance up by, paid with x402. */
export const topUpAmount = usdAmount.refine((micros) => micros >= leastTopUp && micros <= mostTopUp, {
  message: 'must be between 0.01 and 10000 USD',
});

export const TopUpRequestSchema = z.strictObject({ amount: topUpAmount }).openapi('TopUpRequest');

export const SignedReceiptSchema = z
  .object({
    format: z.literal('jws'),
    signature: z.string().openapi({
      description:
        "JWS (ES256) over the receipt's canonical payload, signed with the receipt key: `#receipts-1` of this server's did:web (/.well-known/did.json), never the offer key (`#offers-1`)",
    }),
  })
  .openapi('SignedReceipt', { description: "x402 offer-receipt extension's signed receipt" });

export const TopUpResponseSchema = z
  .object({
    top_up_id: z.string(),
    status: z.enum(['settled', 'settling']).openapi({
      description: '`settling`: the transfer is under way; call again with the same payment for the outcome',
    }),
    amount: moneyString,
    balance: moneyString.nullable().openapi({ description: 'The balance after the credit (null while settling)' }),
    payer: z.string(),
    network: z.string(),
    transaction: z.string().nullable(),
    receipt: SignedReceiptSchema.nullable(),
  })
  .openapi('TopUpResponse');
