import { moneyString, signatureAlgorithm, signatureHeader, TierSchema } from '../../schemas/common.schemas.ts';
import { z } from '../../schemas/zod.ts';

export const DeveloperBalanceResponseSchema = z
  .object({
    developer_id: z.string(),
    balance: moneyString.openapi({
      description: 'The account balance in USD, including what running tasks hold: as `balance` on GET /agents/balance',
    }),
    balance_reserved: moneyString,
    balance_available: moneyString,
    total_spent: moneyString,
    currency: z.string(),
    tier: TierSchema,
    api_key: z.object({
      id: z.string(),
      name: z.string(),
      key_prefix: z.string(),
      last_used_at: z.iso.datetime().nullable(),
      expires_at: z.iso.datetime().nullable(),
    }),
  })
  .openapi('DeveloperBalanceResponse');

export const WebhookSecretResponseSchema = z
  .object({
    webhook_secret: z.string().openapi({ description: 'Standard Webhooks signing secret, `whsec_` + base64' }),
    signature_header: signatureHeader,
    signature_algorithm: signatureAlgorithm,
  })
  .openapi('WebhookSecretResponse');
