// Signing in with a wallet as x402's method offers it (PaymentMethod.signIn): without the extension's header a 402
// carrying the challenge (x402's auth-only PaymentRequired, no offers); signed, the wallet it proves.
import { enabledChains } from '../../../chain/settings.ts';
import { DomainError } from '../../../domain/errors.ts';
import type { WalletSignIn } from '../payment-method.ts';
import { walletAccountId } from './paid-tasks.ts';
import { networkOf, paymentRequiredHeader, x402Version } from './requirements.ts';
import { signInChallenge, verifySignIn } from './sign-in-with-x.ts';
import type { X402MethodDeps } from './x402-deps.ts';

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

export const x402WalletSignIn: WalletSignIn<X402MethodDeps> = {
  async signedIn(deps, { header, resourceUrl, statement }) {
    const secret = deps.config.x402.taskIdSecret;
    if (header) return verifySignIn({ prisma: deps.prisma, secret }, header, resourceUrl);
    const networks = enabledChains(deps.config.chains).map(networkOf);
    const challenge = signInChallenge(secret, resourceUrl, networks, statement);
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
  },
  accountOf: walletAccountId,
};
