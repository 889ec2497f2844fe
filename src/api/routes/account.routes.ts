import { defineEndpoint } from '../endpoint.ts';
import { DeveloperBalanceResponseSchema } from '../schemas/account.schemas.ts';

export const accountEndpoints = [
  defineEndpoint({
    method: 'get',
    path: '/account/balance',
    operationId: 'getDeveloperBalance',
    summary: 'Balance of the calling developer',
    description: 'Developer keys (`sk_`, legacy `vega_`) only; an agent key answers 403.',
    tags: ['Account'],
    auth: 'bearer',
    success: { status: 200, description: 'The developer\'s balance and key', schema: DeveloperBalanceResponseSchema },
    errors: ['forbidden'],
    pendingUntil: 'accounts and API keys',
  }),
];
