import { formatUsd } from '../../money.ts';
import { getAccountSummary } from '../../services/accounts.ts';
import { defineEndpoint } from '../endpoint.ts';
import { DeveloperBalanceResponseSchema } from '../schemas/account.schemas.ts';

const iso = (date: Date | null) => date?.toISOString() ?? null;

export const accountEndpoints = [
  defineEndpoint({
    method: 'get',
    path: '/account/balance',
    operationId: 'getDeveloperBalance',
    summary: 'Balance of the calling developer',
    description: 'Developer keys (`sk_`, legacy `vega_`) only; an agent key answers 403. Amounts in USD: `balance_available` = ' +
      '`balance` − `balance_reserved` (held by running tasks); `total_spent` sums charged generations. `api_key` describes the key used.',
    tags: ['Account'],
    auth: 'developer',
    success: { status: 200, description: 'The developer\'s balance and key', schema: DeveloperBalanceResponseSchema },
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
          api_key: { id: apiKey.id, name: apiKey.name, key_prefix: apiKey.keyPrefix, last_used_at: iso(apiKey.lastUsedAt), expires_at: iso(apiKey.expiresAt) },
        },
      };
    },
  }),
];
