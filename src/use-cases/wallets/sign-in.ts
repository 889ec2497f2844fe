// Signing in with a wallet, as the method that offers it does (x402's Sign-In-with-X): without its header the answer is
// a 402 carrying the challenge; signed, the wallet gets a read session for the tasks it paid for, or a new key for an
// agent it registered.
import { publicApiUrl } from '../../config/config.ts';
import type { PrismaClient } from '../../db/prisma.ts';
import { FieldError, NotFoundError } from '../../domain/errors.ts';
import { issueApiKey, type IssuedKey } from '../../accounts/api-keys.ts';
import type { TokenSite } from '../../accounts/oauth/access-tokens.ts';
import { signWalletSession } from '../../accounts/wallet-sessions.ts';
import type { PaymentMethodDeps, PaymentMethods } from '../../payments/methods/registered.ts';

export interface SignInDeps extends PaymentMethodDeps {
  prisma: PrismaClient;
  /** The ways to pay: the one that offers a wallet's sign-in takes it. */
  payments: PaymentMethods;
  /** The request's public base URL: the signed message names its resource there. */
  base: string;
}

function walletSignIn(payments: PaymentMethods) {
  const signIn = payments.signIn();
  if (!signIn) throw new NotFoundError('This server offers no sign-in with a wallet.');
  return signIn;
}

/** The wallet the request's signed message proves, or a 402 with a fresh challenge for `path`. */
const signedInWallet = (deps: SignInDeps, header: string | undefined, path: string, statement: string) =>
  walletSignIn(deps.payments).signedIn(deps, { header, resourceUrl: publicApiUrl(deps.base, path), statement });

/** A read session for the signed-in wallet's own account (its x402 tasks). */
export async function signInWallet(deps: SignInDeps & { tokenSite: () => TokenSite }, header?: string) {
  const wallet = await signedInWallet(deps, header, '/wallets/sign-in', 'Read the tasks this wallet paid for.');
  const accountId = walletSignIn(deps.payments).accountOf(wallet);
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
