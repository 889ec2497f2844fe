// Signing in with a wallet (x402's Sign-In-with-X): without the extension's header the answer is a 402 carrying the
// challenge; signed, the wallet gets a read session for its own x402 tasks, or a new key for an agent it registered.
import { enabledChains } from '../../chain/settings.ts';
import { type Config, publicApiUrl } from '../../config/config.ts';
import type { PrismaClient } from '../../db/prisma.ts';
import { DomainError, FieldError, NotFoundError } from '../../domain/errors.ts';
import { issueApiKey, type IssuedKey } from '../../accounts/api-keys.ts';
import type { TokenSite } from '../../accounts/oauth/access-tokens.ts';
import { signInChallenge, verifySignIn } from '../../accounts/wallet-sign-in.ts';
import { signWalletSession } from '../../accounts/wallet-sessions.ts';
import { walletAccountId } from '../../payments/methods/x402/paid-tasks.ts';
import { paymentRequiredHeader, x402Version } from '../../payments/methods/x402/requirements.ts';
import { networkOf } from '../../payments/methods/x402/requirements.ts';

export interface SignInDeps {
  prisma: PrismaClient;
  config: Pick<Config, 'chains' | 'x402'>;
  /** The request's public base URL: the signed message names its resource there. */
  base: string;
}

/** No signature yet: x402's auth-only 402 (no offers), the challenge in its `sign-in-with-x` extension. */
export class SignInRequiredError extends DomainError {
  override name = 'SignInRequiredError';
  constructor(message: string, requirements: object) {
    super('payment_required', message, {
      details: { requirements },
      headers: { 'PAYMENT-REQUIRED': paymentRequiredHeader(requirements as never) },
    });
  }
}

/** The wallet the request's signed message proves, or a 402 with a fresh challenge for `path`. */
async function signedInWallet(deps: SignInDeps, header: string | undefined, path: string, statement: string) {
  const resourceUrl = publicApiUrl(deps.base, path);
  if (header) return verifySignIn({ prisma: deps.prisma, secret: deps.config.x402.taskIdSecret }, header, resourceUrl);
  const networks = enabledChains(deps.config.chains).map(networkOf);
  const challenge = signInChallenge(deps.config.x402.taskIdSecret, resourceUrl, networks, statement);
  const requirements = {
    x402Version,
    resource: { url: resourceUrl, description: statement, mimeType: 'application/json' },
    accepts: [],
    extensions: { 'sign-in-with-x': challenge },
  };
  throw new SignInRequiredError(
    `Sign in with your wallet: sign the challenge in this answer's sign-in-with-x extension (SIWE) and send it ` +
      'base64-encoded in the SIGN-IN-WITH-X header. Nothing is paid.',
    requirements,
  );
}

/** A read session for the signed-in wallet's own account (its x402 tasks). */
export async function signInWallet(deps: SignInDeps & { tokenSite: () => TokenSite }, header?: string) {
  const wallet = await signedInWallet(deps, header, '/wallets/sign-in', 'Read the tasks this wallet paid for.');
  const accountId = walletAccountId(wallet);
  const account = await deps.prisma.account.findUnique({ where: { id: accountId } });
  if (!account) throw new NotFoundError(`Wallet ${wallet} has paid for nothing on this server yet.`);
  const session = await signWalletSession(deps.tokenSite(), accountId);
  return { wallet, accountId, ...session };
}

/** A new key for an agent the signed-in wallet registered (paid for); optionally revoking its other keys. */
export async function signInAgent(
  deps: SignInDeps,
  request: { header?: string; agentId?: string; revokeOtherKeys: boolean },
): Promise<{ wallet: string; agentId: string; apiKey: IssuedKey; revokedKeys: number }> {
  const wallet = await signedInWallet(
    deps,
    request.header,
    '/agents/sign-in',
    'Recover a key of an agent this wallet registered.',
  );
  const agents = await deps.prisma.account.findMany({
    where: { kind: 'agent', walletAddress: wallet },
    select: { id: true },
    orderBy: { createdAt: 'asc' },
  });
  const ids = agents.map((agent) => agent.id);
  const agentId = request.agentId ?? (ids.length === 1 ? ids[0] : undefined);
  if (ids.length === 0 || (request.agentId && !ids.includes(request.agentId)))
    throw new NotFoundError(
      `No agent${request.agentId ? ` ${request.agentId}` : ''} was registered by wallet ${wallet}.`,
    );
  if (!agentId)
    throw new FieldError('agent_id', `wallet ${wallet} registered ${ids.length} agents: name one of ${ids.join(', ')}`);
  return deps.prisma.$transaction(async (tx) => {
    const revoked = request.revokeOtherKeys
      ? await tx.apiKey.updateMany({ where: { accountId: agentId, revokedAt: null }, data: { revokedAt: new Date() } })
      : { count: 0 };
    const apiKey = await issueApiKey(tx, { accountId: agentId, kind: 'agent', name: 'wallet sign-in' });
    return { wallet, agentId, apiKey, revokedKeys: revoked.count };
  });
}
