import { budgetWindows, keyScopes } from '../../../accounts/key-policy.ts';
import { generationTypes } from '../../../domain/values.ts';
import { usdAmount } from '../../schemas/common.schemas.ts';
import { safeText, z } from '../../schemas/zod.ts';

export const KeyScopeSchema = z.enum(keyScopes).openapi('KeyScope', {
  description:
    '`generate`: create and cancel tasks, uploads, quotes; `read`: tasks, balance, usage, events; `keys`: manage keys',
});

const PolicyRequestSchema = z
  .strictObject({
    budget: z
      .strictObject({
        amount: usdAmount,
        window: z.enum(budgetWindows).openapi({ description: "UTC calendar window; `total`: the key's whole life" }),
      })
      .optional(),
    models: z.array(safeText(200).min(1)).min(1).max(100).optional().openapi({ description: 'Allowed model slugs' }),
    types: z.array(z.enum(generationTypes)).min(1).optional().openapi({ description: 'Allowed generation types' }),
    max_cost_per_task: usdAmount.optional(),
    rate_limit_per_minute: z.number().int().positive().max(100_000).optional(),
  })
  .openapi('KeyPolicyRequest');

const expiresAt = z.iso
  .datetime({ offset: true })
  .refine((text) => Date.parse(text) > Date.now(), 'must be in the future')
  .nullable()
  .optional()
  .openapi({ description: 'When it stops working; null: never' });

export const CreateKeyBodySchema = z
  .strictObject({
    name: safeText(100).trim().min(1),
    scopes: z.array(KeyScopeSchema).min(1).optional().openapi({
      description: "Default (a new key): the calling key's scopes but `keys`, which is given only when asked for",
    }),
    policy: PolicyRequestSchema.nullable()
      .optional()
      .openapi({ description: "Default: the calling key's; what the calling key limits is kept unless narrowed" }),
    expires_at: expiresAt,
  })
  .openapi('CreateKeyRequest');

export const UpdateKeyBodySchema = CreateKeyBodySchema.partial().openapi('UpdateKeyRequest');

export const KeyIdParamsSchema = z.object({ id: z.string().regex(/^key_[0-9A-Za-z]{1,64}$/) });

const PolicySchema = z
  .object({
    budget: z.object({ amount: z.number(), window: z.enum(budgetWindows) }).optional(),
    models: z.array(z.string()).optional(),
    types: z.array(z.string()).optional(),
    max_cost_per_task: z.number().optional(),
    rate_limit_per_minute: z.number().int().optional(),
  })
  .openapi('KeyPolicy');

export const KeySchema = z
  .object({
    id: z.string(),
    name: z.string(),
    prefix: z.string().openapi({ description: "The key's first characters, to recognise it", example: 'sk_AbCd1234' }),
    created_at: z.string(),
    expires_at: z.string().nullable(),
    last_used_at: z.string().nullable(),
    revoked_at: z.string().nullable(),
    scopes: z.array(KeyScopeSchema),
    policy: PolicySchema.nullable(),
    parent_id: z.string().nullable().openapi({ description: 'The key that created it, if one did' }),
    oauth_client_id: z
      .string()
      .nullable()
      .openapi({ description: 'The OAuth client (an MCP host) it was granted to on the consent screen, if any' }),
  })
  .openapi('Key');

export const CreatedKeySchema = KeySchema.extend({
  api_key: z.string().openapi({ description: 'The secret, shown this once: store it now' }),
}).openapi('CreatedKey');

/** A key with its budget window now: what is spent, held and left, and when it resets. */
export const KeyWithWindowSchema = KeySchema.extend({
  window: z
    .enum(budgetWindows)
    .openapi({ description: "The budget's window; `total` (the key's whole life) for a key without a budget" }),
  spent: z.number().openapi({ description: "USD charged in the window to this key's tasks and its sub-keys'" }),
  reserved: z.number().openapi({ description: 'USD held in the window for their tasks still running' }),
  remaining: z.number().nullable().openapi({ description: 'USD left of the budget in the window; null: no budget' }),
  window_started_at: z.string(),
  resets_at: z.string().nullable().openapi({ description: 'When the next window starts; null: never' }),
}).openapi('KeyWithWindow');

export const KeyListSchema = z.object({ keys: z.array(KeyWithWindowSchema) }).openapi('KeyList');
