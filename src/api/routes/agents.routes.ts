import { priceRequest } from '../../catalog/pricing.ts';
import { ModelRequestError, resolveModel } from '../../catalog/resolve.ts';
import { publicBaseUrl, type Config } from '../../config.ts';
import { formatUsd } from '../../money.ts';
import { getAccountSummary, recentDeposits, setAgentWebhook } from '../../services/accounts.ts';
import { depositAddresses } from '../../services/deposit-addresses.ts';
import { RegistrationCappedError, registerAgent, type RegisteredAgent } from '../../services/registration.ts';
import { clientAddress } from '../client-address.ts';
import { defineEndpoint } from '../endpoint.ts';
import { ApiError } from '../errors.ts';
import {
  AgentBalanceResponseSchema,
  AgentDepositRequestSchema,
  AgentDepositResponseSchema,
  AgentQuoteRequestSchema,
  AgentQuoteResponseSchema,
  AgentRegisterRequestSchema,
  AgentRegisterResponseSchema,
  AgentWebhookRequestSchema,
  AgentWebhookResponseSchema,
} from '../schemas/agents.schemas.ts';
import { webhookSignature } from '../webhook-signature.ts';

const tags = ['Agents'];
const asset = 'USDC';

function onboarding(config: Config, agent: RegisteredAgent, addresses: Record<string, string>) {
  const base = publicBaseUrl(config);
  const chains = Object.keys(addresses).join(', ');
  const address = Object.values(addresses)[0];
  return {
    activation_tips: [
      'Store your API key now: it is shown only once. Send it on every call as `Authorization: Bearer <api_key>`.',
      agent.trialCreditApplied
        ? `You start with $${formatUsd(agent.balance)} of trial credit: enough to try a few generations.`
        : 'No trial credit was applied: this network address has used its trial allowance. Deposit USDC to start.',
      `Deposit USDC on ${chains} to ${address}: the address is yours alone, so every deposit is credited to you.`,
      'Ask for a price before you spend: POST /api/v1/agents/quote tells you the cost and whether your balance covers it.',
    ],
    next_steps: [
      'GET /api/v1/models to choose a model (filter with ?type=text-to-image, ?type=text-to-text, …).',
      'POST /api/v1/agents/quote with { "type", "model" } to see the cost.',
      'POST /api/v1/generations with { "type", "model", "prompt" }: it answers 202 with an id and a poll_url.',
      'GET the poll_url until status is "completed" (outputs are links) or "failed" (you are refunded); or set webhook_url to be told.',
      'After a USDC transfer, POST /api/v1/agents/deposit with { "chain", "tx_hash" } to have it credited.',
      `GET /api/v1/agents/balance for your balance and usage. Full reference: ${base}/docs`,
    ],
  };
}

export const agentEndpoints = [
  defineEndpoint({
    method: 'post',
    path: '/agents/register',
    operationId: 'registerAgent',
    summary: 'Register an agent',
    description:
      'Creates an agent account and its `rf_` API key (shown once), with its own deposit address per enabled chain and, ' +
      'within per-address limits, a trial credit (`trial_credit_applied`, `starting_balance`). Too many registrations from one ' +
      'client address within the window answer 429 `registration_capped`. With `webhook_url`, the response carries the ' +
      '`webhook_secret` that signs deliveries (Standard Webhooks).',
    tags,
    auth: 'none',
    request: { body: AgentRegisterRequestSchema },
    success: {
      status: 201,
      description: 'The agent, its key and its deposit addresses',
      schema: AgentRegisterResponseSchema,
    },
    errors: ['registration_capped'],
    handle: async ({ body, ctx, req }) => {
      let agent: RegisteredAgent;
      try {
        agent = await registerAgent(ctx.prisma, ctx.config, {
          agentName: body.agent_name,
          webhookUrl: body.webhook_url,
          source: body.source,
          platform: body.agent_platform,
          platformVersion: body.agent_version,
          clientAddress: clientAddress(req),
        });
      } catch (error) {
        if (error instanceof RegistrationCappedError) {
          throw new ApiError('registration_capped', `Registration capped: ${error.message}. Try again later.`);
        }
        throw error;
      }
      const addresses = depositAddresses(ctx.config, agent.depositIndex);
      const balance = formatUsd(agent.balance);
      return {
        status: 201,
        body: {
          agent_id: agent.agentId,
          api_key: agent.apiKey.key,
          deposit_addresses: addresses,
          asset,
          balance,
          starting_balance: balance,
          trial_credit_applied: agent.trialCreditApplied,
          ...onboarding(ctx.config, agent, addresses),
          webhook_url: agent.webhookUrl,
          webhook_secret: agent.webhookSecret,
        },
      };
    },
  }),
  defineEndpoint({
    method: 'post',
    path: '/agents/deposit',
    operationId: 'creditDeposit',
    summary: 'Credit an on-chain USDC deposit',
    description:
      'Credits the USDC transfer of `tx_hash` on `chain` to the calling agent once it has enough confirmations.',
    tags,
    auth: 'agent',
    request: { body: AgentDepositRequestSchema },
    success: {
      status: 200,
      description: 'The credit, or a message that it will follow',
      schema: AgentDepositResponseSchema,
    },
    pendingUntil: 'on-chain deposits',
  }),
  defineEndpoint({
    method: 'get',
    path: '/agents/balance',
    operationId: 'getAgentBalance',
    summary: 'Balance and usage of the calling agent',
    description:
      '`balance` is what the agent can spend now, in USD: deposits and credits, minus charges, minus what running ' +
      'tasks hold reserved. `usage` counts charged generations and their total from the ledger.',
    tags,
    auth: 'agent',
    success: { status: 200, description: "The agent's balance", schema: AgentBalanceResponseSchema },
    handle: async ({ principal, ctx }) => {
      const [summary, deposits] = await Promise.all([
        getAccountSummary(ctx.prisma, principal.account.id),
        recentDeposits(ctx.prisma, principal.account.id),
      ]);
      return {
        body: {
          agent_id: summary.id,
          agent_name: summary.name,
          balance: formatUsd(summary.available),
          status: summary.status,
          deposit_addresses: depositAddresses(ctx.config, summary.depositIndex),
          asset,
          webhook_url: summary.webhookUrl,
          usage: { total_requests: summary.charges, total_usd_spent: formatUsd(summary.spent) },
          recent_deposits: deposits.map((deposit) => ({
            id: deposit.id,
            chain: deposit.chain,
            amount_usd: formatUsd(deposit.amount ?? 0n),
            tx_hash: deposit.txHash,
            status: deposit.status,
            created_at: deposit.createdAt.toISOString(),
          })),
        },
      };
    },
  }),
  defineEndpoint({
    method: 'post',
    path: '/agents/quote',
    operationId: 'quoteGeneration',
    summary: 'Quote the cost of a generation',
    description:
      'Prices a request with the same function that admission uses, and says whether the available balance covers it. ' +
      'Agent and developer keys (a developer gets an empty `deposit_addresses` and `asset` "USD"). `model` must serve `type`, and ' +
      '`resolution`, `duration`, `num_outputs`, `sound` and `generate_type` must be options of the model (400 naming the field). ' +
      'Without the prompt, text-priced models assume a typical length and say so in `breakdown`.',
    tags,
    auth: 'any',
    request: { body: AgentQuoteRequestSchema },
    success: { status: 200, description: 'The quote', schema: AgentQuoteResponseSchema },
    handle: async ({ body, principal, ctx }) => {
      let price;
      try {
        price = priceRequest(resolveModel(ctx.catalog, body), body);
      } catch (error) {
        if (error instanceof ModelRequestError)
          throw new ApiError('validation_error', `Invalid body: ${error.message}`);
        throw error;
      }
      const summary = await getAccountSummary(ctx.prisma, principal.account.id);
      const isAgent = principal.account.kind === 'agent';
      const shortfall = price.micros - summary.available;
      return {
        body: {
          cost_usd: formatUsd(price.micros),
          your_balance: formatUsd(summary.available),
          can_afford: shortfall <= 0n,
          shortfall: shortfall > 0n ? formatUsd(shortfall) : null,
          breakdown: price.breakdown,
          deposit_addresses: isAgent ? depositAddresses(ctx.config, summary.depositIndex) : {},
          asset: isAgent ? asset : 'USD',
        },
      };
    },
  }),
  defineEndpoint({
    method: 'patch',
    path: '/agents/webhook',
    operationId: 'updateAgentWebhook',
    summary: "Set or replace the agent's webhook",
    description:
      'Sets the webhook URL and rotates its signing secret: deliveries are signed with the new secret from now on. ' +
      'A URL that is not http(s) answers 400 `invalid_webhook_url`.',
    tags,
    auth: 'agent',
    request: { body: AgentWebhookRequestSchema },
    validationErrorCode: 'invalid_webhook_url',
    success: { status: 200, description: 'The webhook and its new secret', schema: AgentWebhookResponseSchema },
    handle: async ({ body, principal, ctx }) => {
      const { webhookUrl, webhookSecret } = await setAgentWebhook(ctx.prisma, principal.account.id, body.webhook_url);
      return {
        body: {
          success: true,
          webhook_url: webhookUrl,
          webhook_secret: webhookSecret,
          ...webhookSignature,
          message:
            'Webhook saved and its secret rotated. Verify each delivery with this secret (Standard Webhooks: ' +
            'HMAC-SHA256 over "webhook-id.webhook-timestamp.body"); the previous secret no longer signs.',
        },
      };
    },
  }),
];
