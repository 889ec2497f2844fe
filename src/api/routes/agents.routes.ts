import { formatUsd } from '../../domain/money.ts';
import { setAgentWebhook } from '../../accounts/accounts.ts';
import { agentBalance, onboardAgent, quoteGeneration } from '../../accounts/agents.ts';
import { claimDeposit } from '../../orchestration/deposits/claims.ts';
import { depositView } from '../../payments/deposits/view.ts';
import { clientAddress, trialNetwork } from '../client-address.ts';
import { endpointDescriptions } from '../descriptions.ts';
import { type ApiContext, defineEndpoint } from '../endpoint.ts';
import type { Request } from 'express';
import { x402Offered } from '../../chain/settings.ts';
import { publicApiUrl } from '../../config/config.ts';
import { FieldError } from '../../domain/errors.ts';
import type { AgentRegistration } from '../../accounts/registration.ts';
import { registerPaidAgent } from '../../orchestration/top-ups/top-up.ts';
import { topUpAnswer } from '../top-up-answer.ts';
import { onboarding } from '../onboarding.ts';
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

const stillConfirming = (confirmations: number, required: number) =>
  required > 0
    ? `The deposit has ${confirmations} of ${required} confirmations; it is credited on its own once it has them all ` +
      `(about ${required - confirmations} more block(s)). GET /api/v1/agents/balance shows it as pending meanwhile.`
    : 'The transaction has not been seen mined yet (or the chain is not answering); it is credited on its own once ' +
      'it is mined and confirmed.';

const webhookSavedMessage =
  'Webhook saved and its secret rotated. Verify each delivery with this secret (Standard Webhooks: ' +
  'HMAC-SHA256 over "webhook-id.webhook-timestamp.body"); the previous secret no longer signs.';

/** A registration that pays (`top_up`): answered 402 with the offer until paid, then registered to the wallet. */
async function paidRegistration(
  { ctx, req, base }: { ctx: ApiContext; req: Request; base: string },
  registration: AgentRegistration,
  amountMicros: bigint,
) {
  if (!x402Offered(ctx.config))
    throw new FieldError('top_up', 'this server takes no x402 payments; register without it');
  const resourceUrl = publicApiUrl(base, '/agents/register');
  const paid = await registerPaidAgent(ctx, registration, { amountMicros, resourceUrl, headers: req.headers });
  return { ...paid, answer: await topUpAnswer(ctx, paid.topUp, resourceUrl) };
}

export const agentEndpoints = [
  defineEndpoint({
    method: 'post',
    path: '/agents/register',
    operationId: 'registerAgent',
    summary: 'Register an agent',
    description: endpointDescriptions.registerAgent,
    tags,
    auth: 'none',
    request: { body: AgentRegisterRequestSchema },
    success: {
      status: 201,
      description: 'The agent, its key and its deposit addresses',
      schema: AgentRegisterResponseSchema,
    },
    errors: ['registration_capped', 'payment_required', 'conflict', 'service_unavailable'],
    handle: async ({ body, ctx, req, base }) => {
      const registration = {
        agentName: body.agent_name,
        webhookUrl: body.webhook_url,
        source: body.source,
        platform: body.agent_platform,
        platformVersion: body.agent_version,
        clientAddress: clientAddress(req),
        trialNetwork: trialNetwork(req),
      };
      const paid =
        body.top_up === undefined ? undefined : await paidRegistration({ ctx, req, base }, registration, body.top_up);
      const agent = paid?.agent ?? (await onboardAgent(ctx, registration));
      const balance = formatUsd(agent.balance);
      return {
        status: 201,
        body: {
          agent_id: agent.agentId,
          api_key: agent.apiKey.key,
          deposit_addresses: agent.depositAddresses,
          asset,
          balance: paid?.answer.body.balance ?? balance,
          starting_balance: balance,
          trial_credit_applied: agent.trialCreditApplied,
          ...onboarding(base, agent),
          webhook_url: agent.webhookUrl,
          webhook_secret: agent.webhookSecret,
          // Named beside the secret wherever one is handed out, as PATCH /agents/webhook does.
          ...(agent.webhookSecret ? webhookSignature : {}),
          ...(paid && { wallet_address: paid.topUp.payer, top_up: paid.answer.body }),
        },
        headers: paid?.answer.headers,
      };
    },
  }),
  defineEndpoint({
    method: 'post',
    path: '/agents/deposit',
    operationId: 'creditDeposit',
    summary: 'Credit an on-chain USDC deposit',
    description: endpointDescriptions.creditDeposit,
    tags,
    auth: 'agent',
    rateLimit: 'depositClaims',
    request: { body: AgentDepositRequestSchema },
    success: {
      status: 200,
      description: 'The credit, or a message that it will follow',
      schema: AgentDepositResponseSchema,
    },
    errors: [
      'deposit_not_found',
      'deposit_reverted',
      'deposit_wrong_recipient',
      'deposit_wrong_token',
      'deposit_already_credited',
      'service_unavailable',
    ],
    handle: async ({ body, principal, ctx }) => {
      const txHash = body.tx_hash.toLowerCase();
      const claim = await claimDeposit(ctx, { accountId: principal.account.id, chain: body.chain, txHash });
      const identity = { tx_hash: txHash, chain: body.chain };
      if (claim.credited) {
        const { credit } = claim;
        return {
          body: { success: true, amount_credited: credit.amount_usd, new_balance: credit.new_balance, ...identity },
        };
      }
      return {
        body: {
          success: false,
          amount_credited: formatUsd(0n),
          new_balance: formatUsd(claim.balanceMicros),
          ...identity,
          message: stillConfirming(claim.confirmations, claim.required),
        },
      };
    },
  }),
  defineEndpoint({
    method: 'get',
    path: '/agents/balance',
    operationId: 'getAgentBalance',
    summary: 'Balance and usage of the calling agent',
    description: endpointDescriptions.getAgentBalance,
    tags,
    auth: 'agent',
    success: { status: 200, description: "The agent's balance", schema: AgentBalanceResponseSchema },
    handle: async ({ principal, ctx }) => {
      const { summary, deposits, confirmations, depositAddresses } = await agentBalance(ctx, principal.account.id);
      return {
        body: {
          agent_id: summary.id,
          agent_name: summary.name,
          balance: formatUsd(summary.balance),
          balance_reserved: formatUsd(summary.reserved),
          balance_available: formatUsd(summary.available),
          status: summary.status,
          deposit_addresses: depositAddresses,
          asset,
          webhook_url: summary.webhookUrl,
          usage: { total_requests: summary.charges, total_usd_spent: formatUsd(summary.spent) },
          recent_deposits: deposits.map((deposit) => {
            const progress = confirmations.get(deposit.id);
            return {
              ...depositView(deposit),
              confirmations: progress?.confirmations ?? null,
              confirmations_required: progress?.required ?? null,
            };
          }),
        },
      };
    },
  }),
  defineEndpoint({
    method: 'post',
    path: '/agents/quote',
    operationId: 'quoteGeneration',
    summary: 'Quote the cost of a generation',
    description: endpointDescriptions.quoteGeneration,
    tags,
    auth: 'any',
    request: { body: AgentQuoteRequestSchema },
    success: { status: 200, description: 'The quote', schema: AgentQuoteResponseSchema },
    handle: async ({ body, principal, ctx }) => {
      const quote = await quoteGeneration(ctx, {
        account: principal.account,
        keyId: principal.apiKey?.id,
        request: body,
      });
      const refusal = quote.keyRefusal;
      const shortfall = quote.price.micros - quote.availableMicros;
      return {
        body: {
          cost_usd: formatUsd(quote.price.micros),
          your_balance: formatUsd(quote.availableMicros),
          can_afford: shortfall <= 0n,
          shortfall: shortfall > 0n ? formatUsd(shortfall) : null,
          key_allows: refusal === null,
          key_refusal: refusal && { error: refusal.code, message: refusal.message, ...refusal.details },
          breakdown: quote.price.breakdown,
          ...(quote.assumedTokens
            ? {
                assumed_input_tokens: quote.assumedTokens.input,
                assumed_output_tokens: quote.assumedTokens.output,
              }
            : {}),
          deposit_addresses: quote.depositAddresses,
          asset: principal.account.kind === 'agent' ? asset : 'USD',
        },
      };
    },
  }),
  defineEndpoint({
    method: 'patch',
    path: '/agents/webhook',
    operationId: 'updateAgentWebhook',
    // Where every task's events go, and a new signing secret: the account's to manage (as its keys are), no sub-key's.
    scope: 'keys',
    accountWide: true,
    summary: "Set or replace the agent's webhook",
    description: endpointDescriptions.updateAgentWebhook,
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
          message: webhookSavedMessage,
        },
      };
    },
  }),
];
