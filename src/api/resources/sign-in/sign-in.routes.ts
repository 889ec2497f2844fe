// Sign-In-with-X: a wallet proves its address without paying. POST /wallets/sign-in gives it a read session for the
// tasks it paid for with x402; POST /agents/sign-in gives an agent it registered a new key (a lost key recovered).
import { walletSessionSeconds } from '../../../accounts/wallet-sessions.ts';
import { signInAgent, signInWallet } from '../../../use-cases/wallets/sign-in.ts';
import { defineEndpoint } from '../../endpoint.ts';
import {
  AgentSignInRequestSchema,
  AgentSignInResponseSchema,
  signInHeaders,
  WalletSignInResponseSchema,
} from './sign-in.schemas.ts';

export const signInEndpoints = [
  defineEndpoint({
    method: 'post',
    path: '/wallets/sign-in',
    operationId: 'signInWallet',
    summary: 'Sign in with a wallet to read its x402 tasks',
    description:
      "Signs a wallet in with x402's Sign-In-with-X extension (CAIP-122; SIWE on the enabled EVM chains), without paying. Without the `SIGN-IN-WITH-X` header the answer is **402** `payment_required` whose `requirements` (and `PAYMENT-REQUIRED` header) carry no offers and a `sign-in-with-x` extension: the challenge (domain, uri, nonce, issuedAt, expirationTime) and the chains it may be signed on. Signed within five minutes (the extension's `createSIWxPayload`, then `encodeSIWxHeader`), the answer is a read session: `access_token` (`wt_…`, an hour) that lists and reads the wallet's own x402 tasks, their events and outputs (GET /generations, GET /generations/{id}, …/events), and nothing else; an event stream opened with it ends when it expires. Each challenge signs in once; a message for another origin, too old, or whose signature does not recover its address is 401. A wallet that never paid here is 404. Every call, however malformed, counts against the caller's network as an admission without a key (429 `rate_limited` past it).",
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
    description:
      "Recovers an agent registered by an x402 payment (POST /agents/register with `top_up`): signed in with the wallet that paid (Sign-In-with-X, as POST /wallets/sign-in), it answers a new `rf_` key for the agent (`agent_id` names one when the wallet registered several); `revoke_other_keys: true` revokes its other keys in the same step. Without the header: **402** with the challenge. A wallet that registered no agent (or not the one named) is 404. Every call, however malformed, counts against the caller's network as an admission without a key (429 `rate_limited` past it).",
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
