import { z } from './zod.ts';

export const generationTypes = [
  'text-to-image',
  'image-to-image',
  'text-to-video',
  'image-to-video',
  'video-to-video',
  'reference-to-video',
  'subject-to-video',
  'upscale',
  'face-swap',
  'lip-sync',
  'text-to-music',
  'text-to-audio',
  'audio-to-audio',
  'speech-to-text',
  'text-to-3d',
  'image-to-3d',
  'text-to-text',
] as const;
export const GenerationTypeSchema = z.enum(generationTypes).openapi('GenerationType');

export const chains = ['base', 'polygon', 'ethereum'] as const;
export const ChainSchema = z.enum(chains).openapi('Chain');

export const tiers = ['free', 'starter', 'pro', 'enterprise'] as const;
export const TierSchema = z.enum(tiers).openapi('Tier');

export const taskStatuses = ['queued', 'processing', 'completed', 'failed'] as const;
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
  })
  .openapi('PaymentRequiredError');

/** A decimal amount of money as the API shows balances: a string such as "12.500000". */
export const moneyString = z
  .string()
  .regex(/^-?\d+(\.\d+)?$/)
  .openapi({ example: '1.000000' });

// No user:password@ part: a credential in a webhook URL would be logged with every failed attempt.
export const httpUrl = z
  .url({ protocol: /^https?$/, error: 'must be an http(s) URI' })
  // (Refinements run even when the URL check failed: an unparsable URL is left to that check's message.)
  .refine(
    (url) => !URL.canParse(url) || (!new URL(url).username && !new URL(url).password),
    'must not contain a user name or password',
  );

export const DepositAddressesSchema = z
  .record(z.string(), z.string())
  .openapi('DepositAddresses', { description: 'Deposit address per enabled chain (keys: base, polygon, ethereum)' });
