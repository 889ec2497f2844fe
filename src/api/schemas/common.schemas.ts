import { chains, generationTypes, taskIdPattern, taskStatuses, tiers } from '../../domain/values.ts';
import { parseUsd } from '../../domain/money.ts';
import { storable, z } from './zod.ts';

export const GenerationTypeSchema = z.enum(generationTypes).openapi('GenerationType');

export const ChainSchema = z.enum(chains).openapi('Chain');

export const TierSchema = z.enum(tiers).openapi('Tier');

export const TaskStatusSchema = z.enum(taskStatuses).openapi('TaskStatus');

export const ErrorSchema = z
  .object({
    error: z.string().openapi({ description: 'Stable snake_case error code', example: 'validation_error' }),
    message: z
      .string()
      .optional()
      .openapi({ description: 'Human-readable explanation; names the field for validation errors' }),
  })
  .openapi('Error');

export const PaymentRequiredErrorSchema = z
  .object({
    error: z.string(),
    message: z.string().optional(),
    cost: z.number().optional().openapi({ description: 'Cost of the request in USD' }),
    balance_available: z.number().optional().openapi({ description: 'Available balance in USD' }),
    requirements: z
      .record(z.string(), z.unknown())
      .optional()
      .openapi({ description: 'x402 payment requirements, present when the x402 flow is used' }),
    x402Version: z
      .literal(1)
      .optional()
      .openapi({ description: 'x402 v1 clients (X-PAYMENT): the version of `accepts`; `requirements` is v2' }),
    accepts: z.array(z.record(z.string(), z.unknown())).optional().openapi({
      description:
        'x402 v1 clients: the `exact` offers of `requirements` on networks v1 names (`base-sepolia`, …), with `maxAmountRequired`',
    }),
  })
  .openapi('PaymentRequiredError');

/** A decimal amount of money as the API shows balances: a string such as "12.500000". */
export const moneyString = z
  .string()
  .regex(/^-?\d+(\.\d+)?$/)
  .openapi({ example: '1.000000' });

// No user:password@ part: a credential in a webhook URL would be logged with every failed attempt.
export const httpUrl = storable(z.url({ protocol: /^https?$/, error: 'must be an http(s) URI' }))
  // (Refinements run even when the URL check failed: an unparsable URL is left to that check's message.)
  .refine(
    (url) => !URL.canParse(url) || (!new URL(url).username && !new URL(url).password),
    'must not contain a user name or password',
  )
  // The document says http(s) and a host too (`format: uri` alone admits any scheme, and none); any case of the scheme.
  .openapi({ pattern: '^[Hh][Tt][Tt][Pp][Ss]?://[^\\s/?#@\\u0000]+([/?#][^\\u0000]*)?$' });

export const DepositAddressesSchema = z
  .record(z.string(), z.string())
  .openapi('DepositAddresses', { description: 'Deposit address per enabled chain (keys: base, polygon, ethereum)' });

/** A task id in the path, under the name the route gives it (`id`, or `taskId` on the deprecated alias). */
export const taskIdParams = <Name extends string>(name: Name) =>
  z.object({
    [name]: z
      .string()
      .regex(taskIdPattern, 'must be a task id (gen_ followed by 22 letters and digits)')
      .openapi({ param: { name, in: 'path' }, description: 'Task id from creation (gen_…)' }),
  } as Record<Name, z.ZodString>);

/** How webhooks are signed, returned wherever a signing secret is (Standard Webhooks; README "Webhooks"). */
export const signatureHeader = z.string().openapi({
  description: 'The header that carries the signature: `webhook-signature` (with `webhook-id`, `webhook-timestamp`)',
  example: 'webhook-signature',
});
export const signatureAlgorithm = z.string().openapi({
  description:
    '`hmac-sha256`: the header holds `v1,` + base64 HMAC-SHA256, keyed by the secret, of `{webhook-id}.{webhook-timestamp}.{body}` (Standard Webhooks)',
  example: 'hmac-sha256',
});

/** USD as a number or a decimal string, exact to the micro-USD (never rounded): bigint micro-USD inside. */
export const usdAmount = z
  .union([z.number().nonnegative(), z.string()])
  .transform((value, ctx) => {
    try {
      return parseUsd(typeof value === 'number' ? String(value) : value);
    } catch {
      ctx.addIssue({ code: 'custom', message: 'must be an amount in USD with at most six decimals' });
      return z.NEVER;
    }
  })
  .openapi({ type: 'number', description: 'USD, at most six decimals (a decimal string is also taken)', example: 5 });
