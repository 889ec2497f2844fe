import {
  ChainSchema,
  DepositAddressesSchema,
  GenerationTypeSchema,
  httpUrl,
  moneyString,
  signatureAlgorithm,
  signatureHeader,
} from '../../schemas/common.schemas.ts';
import { generateTypes } from '../../../domain/values.ts';
import { topUpAmount, TopUpResponseSchema } from '../top-ups/top-ups.schemas.ts';
import { boundedInt, safeText, z } from '../../schemas/zod.ts';

export const AgentRegisterRequestSchema = z
  .object({
    agent_name: safeText(50).min(3),
    webhook_url: httpUrl.optional(),
    source: safeText(100).optional(),
    agent_platform: safeText(100)
      .optional()
      .openapi({ description: '`openclaw`, `generic`, or any string up to 100 characters' }),
    agent_version: safeText(50).optional(),
    top_up: topUpAmount.optional().openapi({
      type: 'number',
      description:
        'USD to pay with x402 now (0.01 to 10000): the registration answers 402 with the offer, and once paid the agent is tied to the paying wallet (it can sign in to recover a key) and its balance credited',
    }),
  })
  .openapi('AgentRegisterRequest');

export const AgentRegisterResponseSchema = z
  .object({
    agent_id: z.string(),
    api_key: z.string().openapi({ description: 'Shown once; store it now' }),
    deposit_addresses: DepositAddressesSchema,
    asset: z.string(),
    balance: moneyString,
    starting_balance: moneyString,
    trial_credit_applied: z.boolean(),
    activation_tips: z.array(z.string()),
    next_steps: z.array(z.string()),
    webhook_url: httpUrl.nullable().optional(),
    webhook_secret: z.string().nullable().optional(),
    signature_header: signatureHeader.optional(),
    signature_algorithm: signatureAlgorithm.optional(),
    wallet_address: z.string().optional().openapi({ description: 'A paid registration: the wallet that paid' }),
    top_up: TopUpResponseSchema.optional().openapi({ description: 'A paid registration: its top-up and receipt' }),
  })
  .openapi('AgentRegisterResponse');

export const RecentDepositSchema = z.object({
  id: z.string(),
  chain: z.string(),
  amount_usd: moneyString,
  tx_hash: z.string(),
  status: z.string(),
  created_at: z.iso.datetime().nullable(),
  confirmations: z
    .number()
    .int()
    .nullable()
    .optional()
    .openapi({
      description:
        "Extension: blocks from the deposit's own to the chain's head, inclusive, up to `confirmations_required` " +
        '(a credited deposit has them all); null when rejected or the chain did not answer in time',
    }),
  confirmations_required: z
    .number()
    .int()
    .nullable()
    .optional()
    .openapi({ description: 'Extension: the confirmations the chain needs before the deposit is credited' }),
});

export const AgentBalanceResponseSchema = z
  .object({
    agent_id: z.string(),
    agent_name: z.string(),
    balance: moneyString.openapi({
      description:
        'The account balance in USD, including what running tasks hold: as `balance` on GET /account/balance',
    }),
    balance_reserved: moneyString.openapi({ description: 'Extension: held by running tasks until they settle' }),
    balance_available: moneyString.openapi({
      description: 'Extension: what new generations can spend, `balance` − `balance_reserved`',
    }),
    status: z.string(),
    deposit_addresses: DepositAddressesSchema,
    asset: z.string(),
    webhook_url: httpUrl.nullable().optional(),
    usage: z.object({ total_requests: z.int(), total_usd_spent: moneyString }),
    recent_deposits: z.array(RecentDepositSchema).optional(),
  })
  .openapi('AgentBalanceResponse');

export const AgentDepositRequestSchema = z
  .object({
    chain: ChainSchema,
    tx_hash: z.string().regex(/^0x[a-fA-F0-9]{64}$/, 'must be 0x followed by 64 hex digits'),
  })
  .openapi('AgentDepositRequest');

export const AgentDepositResponseSchema = z
  .object({
    success: z.boolean(),
    amount_credited: moneyString,
    new_balance: moneyString.openapi({ description: "The agent's `balance` now, as GET /agents/balance shows it" }),
    tx_hash: z.string().optional(),
    chain: z.string().optional(),
    message: z.string().optional(),
  })
  .openapi('AgentDepositResponse');

export const AgentQuoteRequestSchema = z
  .object({
    type: GenerationTypeSchema,
    model: safeText().min(1),
    resolution: safeText().optional(),
    duration: z.number().positive().optional().openapi({
      description: 'Seconds: of output, or for per-minute (speech-to-text) models of the input to transcribe',
    }),
    num_outputs: boundedInt(1).optional(),
    sound: z.boolean().optional(),
    generate_type: z.enum(generateTypes).optional(),
  })
  .openapi('AgentQuoteRequest', { example: { type: 'text-to-audio', model: 'local/espeak' } });

export const AgentQuoteResponseSchema = z
  .object({
    cost_usd: moneyString,
    your_balance: moneyString.openapi({
      description: 'The available balance the cost is compared with (`balance_available` on the balance endpoints)',
    }),
    can_afford: z.boolean(),
    shortfall: moneyString.nullable().optional(),
    key_allows: z.boolean().openapi({
      description:
        "Extension: whether the calling key's policy (and those of the keys above it) would admit this request now",
    }),
    key_refusal: z
      .object({ error: z.string(), message: z.string() })
      .catchall(z.unknown())
      .nullable()
      .openapi({ description: 'Extension: the 403 a generation would get now (`budget_exceeded`, …); null: none' }),
    breakdown: z.record(z.string(), z.unknown()).openapi({
      description:
        'How the price was made: `rule` and its rates and quantities. For text-priced models the quantities the quote ' +
        'assumed (it carries no text) are flagged: `characters_assumed`, `minutes_assumed`, or `tokens_measured: false`. ' +
        'A model priced on the length of an input (per-minute audio, lip-sync) names where the quoted length came from: ' +
        '`input_length` `declared` (`duration`) or `assumed`; a generation is priced on the input it measures.',
    }),
    assumed_input_tokens: z
      .int()
      .optional()
      .openapi({
        description:
          'Extension, per-token (text-to-text) models only: the input tokens the quote priced. A quote carries no text, ' +
          "so this is what an empty prompt reserves (the chat template's framing); a generation reserves an upper bound " +
          "of its own prompt's tokens (one per UTF-8 byte, plus framing) and is charged the tokens the provider reports.",
      }),
    assumed_output_tokens: z.int().optional().openapi({
      description:
        "Extension, per-token models only: the output tokens the quote priced, the model's default `max_tokens`.",
    }),
    deposit_addresses: DepositAddressesSchema,
    asset: z.string(),
  })
  .openapi('AgentQuoteResponse');

export const AgentWebhookRequestSchema = z.object({ webhook_url: httpUrl }).openapi('AgentWebhookRequest');

export const AgentWebhookResponseSchema = z
  .object({
    success: z.boolean(),
    webhook_url: httpUrl,
    webhook_secret: z.string(),
    message: z.string().optional(),
    signature_header: signatureHeader.optional(),
    signature_algorithm: signatureAlgorithm.optional(),
  })
  .openapi('AgentWebhookResponse');
