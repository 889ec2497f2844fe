import { formatUsd } from '../../../domain/money.ts';
import { getDeveloperBalance } from '../../../accounts/accounts.ts';
import { requireWebhookSecret } from '../../../webhooks/secrets.ts';
import { defineEndpoint } from '../../endpoint.ts';
import { DeveloperBalanceResponseSchema, WebhookSecretResponseSchema } from './account.schemas.ts';
import { webhookSignature } from '../../webhook-signature.ts';

const iso = (date: Date | null) => date?.toISOString() ?? null;

export const accountEndpoints = [
  defineEndpoint({
    method: 'get',
    path: '/account/balance',
    operationId: 'getDeveloperBalance',
    summary: 'Balance of the calling developer',
    description:
      'Developer keys (`sk_`, legacy `vega_`) only; an agent key answers 403. Amounts in USD, meaning what they mean on GET /agents/balance: `balance` includes what running tasks hold (`balance_reserved`); `balance_available` = `balance` − `balance_reserved` is what new generations can spend; `total_spent` sums charged generations. `api_key` describes the key used.',
    tags: ['Account'],
    auth: 'developer',
    success: { status: 200, description: "The developer's balance and key", schema: DeveloperBalanceResponseSchema },
    handle: async ({ principal, ctx }) => {
      // A developer always calls with a key; only a task token (never accepted here) has none.
      const { summary, apiKey } = await getDeveloperBalance(ctx.prisma, {
        accountId: principal.account.id,
        keyId: principal.apiKey!.id,
      });
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
    // A secret of the account's, not a task's: only a key that manages the account reads it, and no sub-key.
    scope: 'keys',
    accountWide: true,
    summary: 'The secret that signs your webhooks',
    description:
      "Gateway extension (not in interface 1.1.0). Every webhook sent for your account, to a generation's `webhook_url` and to an agent's own webhook, is signed with this secret (Standard Webhooks: headers `webhook-id`, `webhook-timestamp`, `webhook-signature`). It is created at the first call or the first delivery, whichever comes first. Developer and agent keys; agents also receive it from registration with a webhook and from `PATCH /agents/webhook`, which rotates it. Needs the `keys` scope and a key without a policy (a key with one: 403 `forbidden`).",
    tags: ['Account'],
    auth: 'any',
    success: { status: 200, description: 'The signing secret and how it signs', schema: WebhookSecretResponseSchema },
    handle: async ({ principal, ctx }) => {
      const secret = await requireWebhookSecret(ctx.prisma, principal.account.id);
      return { body: { webhook_secret: secret, ...webhookSignature } };
    },
  }),
];
