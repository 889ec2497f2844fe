import { formatUsd } from '../../money.ts';
import { getAccountSummary } from '../../services/accounts.ts';
import { webhookSecretOf } from '../../webhooks/secrets.ts';
import { defineEndpoint } from '../endpoint.ts';
import { DeveloperBalanceResponseSchema, WebhookSecretResponseSchema } from '../schemas/account.schemas.ts';
import { webhookSignature } from '../webhook-signature.ts';

const iso = (date: Date | null) => date?.toISOString() ?? null;

export const accountEndpoints = [
  defineEndpoint({
    method: 'get',
    path: '/account/balance',
    operationId: 'getDeveloperBalance',
    summary: 'Balance of the calling developer',
    description:
      'Developer keys (`sk_`, legacy `vega_`) only; an agent key answers 403. Amounts in USD: `balance_available` = ' +
      '`balance` − `balance_reserved` (held by running tasks); `total_spent` sums charged generations. `api_key` describes the key used.',
    tags: ['Account'],
    auth: 'developer',
    success: { status: 200, description: "The developer's balance and key", schema: DeveloperBalanceResponseSchema },
    handle: async ({ principal, ctx }) => {
      const summary = await getAccountSummary(ctx.prisma, principal.account.id);
      const { apiKey } = principal;
      return {
        body: {
          developer_id: summary.id,
          balance: formatUsd(summary.balance),
          balance_reserved: formatUsd(summary.reserved),
          balance_available: formatUsd(summary.available),
          total_spent: formatUsd(summary.spent),
          currency: 'USD',
          tier: summary.tier ?? 'free',
          api_key: {
            id: apiKey.id,
            name: apiKey.name,
            key_prefix: apiKey.keyPrefix,
            last_used_at: iso(apiKey.lastUsedAt),
            expires_at: iso(apiKey.expiresAt),
          },
        },
      };
    },
  }),
  defineEndpoint({
    method: 'get',
    path: '/account/webhook-secret',
    operationId: 'getWebhookSecret',
    summary: 'The secret that signs your webhooks',
    description:
      "Gateway extension (not in interface 1.1.0). Every webhook sent for your account, to a generation's " +
      "`webhook_url` and to an agent's own webhook, is signed with this secret (Standard Webhooks: headers `webhook-id`, " +
      '`webhook-timestamp`, `webhook-signature`). It is created at the first call or the first delivery, whichever comes ' +
      'first. Developer and agent keys; agents also receive it from registration with a webhook and from ' +
      '`PATCH /agents/webhook`, which rotates it.',
    tags: ['Account'],
    auth: 'any',
    success: { status: 200, description: 'The signing secret and how it signs', schema: WebhookSecretResponseSchema },
    handle: async ({ principal, ctx }) => {
      const secret = await webhookSecretOf(ctx.prisma, principal.account.id);
      if (!secret) throw new Error(`account ${principal.account.id} vanished while authenticated`);
      return { body: { webhook_secret: secret, ...webhookSignature } };
    },
  }),
];
