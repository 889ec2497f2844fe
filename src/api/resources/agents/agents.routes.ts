import { formatUsd } from '../../../domain/money.ts';
import { setAgentWebhook } from '../../../accounts/accounts.ts';
import { agentBalance, onboardAgent, quoteGeneration } from '../../../accounts/agents.ts';
import { claimDeposit } from '../../../use-cases/deposits/claims.ts';
import { depositView } from '../../../deposits/view.ts';
import { clientAddress, trialNetwork } from '../../client-address.ts';
import { type ApiContext, defineEndpoint } from '../../endpoint.ts';
import type { Call } from '../../call.ts';
import { publicApiUrl } from '../../../config/config.ts';
import { FieldError } from '../../../domain/errors.ts';
import type { AgentRegistration } from '../../../accounts/registration.ts';
import { registerPaidAgent } from '../../../use-cases/top-ups/top-up.ts';
import { topUpAnswer } from '../top-ups/top-up-answer.ts';
import { onboarding } from './onboarding.ts';
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
} from './agents.schemas.ts';
import { webhookSignature } from '../../webhook-signature.ts';

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
  { ctx, call, base }: { ctx: ApiContext; call: Call; base: string },
  registration: AgentRegistration,
  amountMicros: bigint,
) {
  if (!ctx.payments.topUps(ctx.config))
    throw new FieldError('top_up', 'this server takes no x402 payments; register without it');
  const resourceUrl = publicApiUrl(base, '/agents/register');
  const paid = await registerPaidAgent(ctx, registration, { amountMicros, resourceUrl, headers: call.headers });
  return { ...paid, answer: await topUpAnswer(ctx, paid.topUp, resourceUrl) };
}

export const agentEndpoints = [
  defineEndpoint({
    method: 'post',
    path: '/agents/register',
    operationId: 'registerAgent',
    summary: 'Register an agent',
    description:
      'Creates an agent account and its `rf_` API key (shown once), with its own deposit address per enabled chain and, within limits per client network (an IPv4 address or an IPv6 /48) and per day on the whole server, a trial credit (`trial_credit_applied`, `starting_balance`; past a limit the registration still succeeds without it, and `activation_tips` says why). Too many registrations from one client address within the window answer 429 `registration_capped`. With `webhook_url`, the response carries the `webhook_secret` that signs deliveries, with `signature_header` and `signature_algorithm` as PATCH /agents/webhook gives them (Standard Webhooks: `webhook-signature`, `hmac-sha256`). `balance` is the starting balance (nothing is reserved yet).',
    tags,
    auth: 'none',
    request: { body: AgentRegisterRequestSchema },
    success: {
      status: 201,
      description: 'The agent, its key and its deposit addresses',
      schema: AgentRegisterResponseSchema,
    },
    errors: ['registration_capped', 'payment_required', 'conflict', 'service_unavailable'],
    handle: async ({ body, ctx, call, base }) => {
      const registration = {
        agentName: body.agent_name,
        webhookUrl: body.webhook_url,
        source: body.source,
        platform: body.agent_platform,
        platformVersion: body.agent_version,
        clientAddress: clientAddress(call.address),
        trialNetwork: trialNetwork(call.address),
      };
      const paid =
        body.top_up === undefined ? undefined : await paidRegistration({ ctx, call, base }, registration, body.top_up);
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
    description:
      "Credits the USDC sent by `tx_hash` on `chain` to the calling agent's deposit address, once the transaction has the chain's confirmation depth: only `Transfer` logs of the configured USDC contract count, and each transfer is credited once, to the agent it paid, ever (a transaction paying several agents, such as a multisend, credits each of them; `amount_credited` is what it paid you). Waits a few seconds for the credit: credited → `success: true` with `amount_credited` and `new_balance`; still confirming (or not mined yet, within the receipt wait) → `success: false` and a `message` (the credit then follows on its own, and the deposit is listed as pending in GET /agents/balance). Claiming a credited hash again answers the same. Refusals are 400: `deposit_not_found` (no such transaction once the receipt wait is over, or dropped by a reorganisation; a later claim looks it up once more and answers at once: refused again, or credited if it has since been mined), `deposit_reverted`, `deposit_wrong_token`, `deposit_wrong_recipient`, `deposit_already_credited`. A transaction the ledger refuses to record or credit is 500 `internal_error` naming it (for the operator: claiming it again changes nothing); the chain or the database unreachable for the hour the check retries, 503 `service_unavailable`.",
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
    description:
      'Agent keys (`rf_`) only. Amounts in USD, meaning what they mean on GET /account/balance: `balance` is deposits and credits minus charges, including what running tasks hold; `balance_reserved` is that hold; `balance_available` = `balance` − `balance_reserved` is what new generations can spend (the amount quotes and the 402 compare with). `usage` counts charged generations and their total from the ledger.',
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
    description:
      "Prices a request with the same function that admission uses, and says whether the available balance covers it. Agent and developer keys (a developer gets an empty `deposit_addresses` and `asset` \"USD\"). `model` must serve `type`, and `resolution`, `duration`, `num_outputs`, `sound` and `generate_type` must be options of the model (400 naming the field). A quote carries no text, so text-priced models price an assumed length, which `breakdown` names: per-character models (`rule: per_1k_characters`, text-to-audio) price the model's `assumed_characters` (`characters_assumed: true`) where the generation pays its prompt's length; per-token models (`rule: per_token`, text-to-text) price the input tokens of an empty prompt (the chat template's framing) and the model's default `max_tokens` of output, named in `assumed_input_tokens` and `assumed_output_tokens`, where the generation reserves an upper bound of its prompt's tokens (one per UTF-8 byte, which holds for every script, plus framing) plus its `max_tokens`, and is charged the tokens the provider reports; per-minute models (speech-to-text) price `duration` seconds of input (`input_length` `declared`), or the model's reserved minutes (`minutes_assumed: true`, `input_length` `assumed`). A long prompt can therefore cost more than its quote, and a model priced on the length of an input (per-minute audio, lip-sync) is admitted at the length the gateway measures in the file, not the declared `duration`.",
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
    description:
      'Sets the webhook URL and rotates its signing secret: deliveries are signed with the new secret from now on. `signature_header` (`webhook-signature`) and `signature_algorithm` (`hmac-sha256`) name the Standard Webhooks scheme. A URL that is not http(s) answers 400 `invalid_webhook_url`. Needs the `keys` scope and a key without a policy (a key with one: 403 `forbidden`).',
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
