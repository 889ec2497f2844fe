// Sign-In-with-X: a wallet proves its address without paying. POST /wallets/sign-in gives it a read session for the
// tasks it paid for with x402; POST /agents/sign-in gives an agent it registered a new key (a lost key recovered).
import { walletSessionSeconds } from '../../accounts/wallet-sessions.ts';
import { signInAgent, signInWallet } from '../../orchestration/wallets/sign-in.ts';
import { endpointDescriptions } from '../descriptions.ts';
import { defineEndpoint } from '../endpoint.ts';
import {
  AgentSignInRequestSchema,
  AgentSignInResponseSchema,
  signInHeaders,
  WalletSignInResponseSchema,
} from '../schemas/sign-in.schemas.ts';

export const signInEndpoints = [
  defineEndpoint({
    method: 'post',
    path: '/wallets/sign-in',
    operationId: 'signInWallet',
    summary: 'Sign in with a wallet to read its x402 tasks',
    description: endpointDescriptions.signInWallet,
    tags: ['x402'],
    auth: 'none',
    rateLimit: 'admissions',
    request: { headers: signInHeaders },
    success: { status: 200, description: 'A read session for the wallet', schema: WalletSignInResponseSchema },
    errors: ['payment_required', 'unauthorized', 'not_found'],
    handle: async ({ headers, ctx, base }) => {
      const deps = { ...ctx, base, tokenSite: () => ctx.oauth.tokenSite() };
      const session = await signInWallet(deps, headers['SIGN-IN-WITH-X']);
      return {
        body: {
          access_token: session.token,
          token_type: 'Bearer' as const,
          expires_in: walletSessionSeconds,
          wallet: session.wallet,
          account_id: session.accountId,
        },
      };
    },
  }),
  defineEndpoint({
    method: 'post',
    path: '/agents/sign-in',
    operationId: 'signInAgent',
    summary: 'Recover an agent key by signing in with the wallet that registered it',
    description: endpointDescriptions.signInAgent,
    tags: ['Agents'],
    auth: 'none',
    rateLimit: 'admissions',
    request: { body: AgentSignInRequestSchema, headers: signInHeaders },
    success: { status: 201, description: 'A new key for the agent', schema: AgentSignInResponseSchema },
    errors: ['payment_required', 'unauthorized', 'not_found'],
    handle: async ({ body, headers, ctx, base }) => {
      const recovered = await signInAgent(
        { ...ctx, base },
        {
          header: headers['SIGN-IN-WITH-X'],
          agentId: body.agent_id,
          revokeOtherKeys: body.revoke_other_keys,
        },
      );
      return {
        status: 201,
        body: {
          agent_id: recovered.agentId,
          api_key: recovered.apiKey.key,
          key_id: recovered.apiKey.id,
          wallet: recovered.wallet,
          revoked_keys: recovered.revokedKeys,
        },
      };
    },
  }),
];
