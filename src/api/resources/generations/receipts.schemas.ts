import { moneyString } from '../../schemas/common.schemas.ts';
import { SignedReceiptSchema } from '../top-ups/top-ups.schemas.ts';
import { z } from '../../schemas/zod.ts';

export const GenerationReceiptSchema = z
  .object({
    kind: z.enum(['payment', 'charge', 'refund']).openapi({
      description:
        '`payment`: an x402 payment settled on chain; `charge`: what the balance paid; `refund`: what was given back (a failed or cancelled task, a reservation above the cost, an `upto` settled below its maximum)',
    }),
    amount: moneyString,
    network: z
      .string()
      .openapi({ description: '`eip155:<chain id>` for an on-chain payment; `balance` for the ledger' }),
    transaction: z.string().optional().openapi({
      description:
        'The transfer’s hash, or `ledger:<entry id>`; absent where nothing moved (what an `upto` payment never took)',
    }),
    payer: z.string().openapi({ description: 'The paying wallet, or the account id' }),
    issued_at: z.iso.datetime(),
    receipt: SignedReceiptSchema,
  })
  .openapi('GenerationReceipt');

export const GenerationReceiptsResponseSchema = z
  .object({
    task_id: z.string(),
    receipts: z.array(GenerationReceiptSchema).openapi({ description: 'Oldest first; empty while nothing has moved' }),
  })
  .openapi('GenerationReceiptsResponse');
