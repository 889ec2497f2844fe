// Sign-In-with-X (x402's extension, CAIP-122): a wallet proves it holds its address by signing our challenge, without
// paying. The challenge's nonce is ours (an HMAC of a random part, so nothing is stored for a challenge nobody
// answers) and is taken once: a signed message cannot sign anyone in twice.
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import {
  buildSIWxSchema,
  parseSIWxHeader,
  SIGN_IN_WITH_X,
  type SIWxExtension,
  validateSIWxMessage,
  verifySIWxSignature,
} from '@x402/extensions/sign-in-with-x';
import type { PrismaClient } from '../../../db/prisma.ts';
import { DomainError } from '../../../domain/errors.ts';
import { Prisma } from '../../../generated/prisma/client.ts';

/** How long a challenge may be answered (validateSIWxMessage's own limit on a message's age is the same). */
const challengeSeconds = 300;
const signInHeader = SIGN_IN_WITH_X;

export class SignInRefusedError extends DomainError {
  override name = 'SignInRefusedError';
  constructor(reason: string, message: string) {
    super('unauthorized', `Sign-in refused (${reason}): ${message}`);
  }
}

// The MAC binds the nonce to the URL it was issued for: a message signed to read tasks cannot recover a key.
const macOf = (secret: string, random: string, resourceUrl: string) =>
  createHmac('sha256', secret).update(`siwx-nonce\n${resourceUrl}\n${random}`).digest('hex').slice(0, 32);

function issuedNonce(secret: string, resourceUrl: string): string {
  const random = randomBytes(16).toString('hex');
  return `${random}${macOf(secret, random, resourceUrl)}`;
}

function isOurNonce(secret: string, nonce: string, resourceUrl: string): boolean {
  if (!/^[0-9a-f]{64}$/.test(nonce)) return false;
  const expected = Buffer.from(macOf(secret, nonce.slice(0, 32), resourceUrl));
  return timingSafeEqual(expected, Buffer.from(nonce.slice(32)));
}

/** The `sign-in-with-x` extension of a 402 asking `resourceUrl`'s caller to sign in with a wallet on `networks`. */
export function signInChallenge(
  secret: string,
  resourceUrl: string,
  networks: string[],
  statement: string,
): SIWxExtension {
  const now = new Date();
  return {
    info: {
      domain: new URL(resourceUrl).host,
      uri: resourceUrl,
      statement,
      version: '1',
      nonce: issuedNonce(secret, resourceUrl),
      issuedAt: now.toISOString(),
      expirationTime: new Date(now.getTime() + challengeSeconds * 1000).toISOString(),
      resources: [resourceUrl],
    },
    supportedChains: networks.map((chainId) => ({ chainId, type: 'eip191' as const })),
    schema: buildSIWxSchema(),
  };
}

/** Whether the request carries a sign-in (the extension's header). */
export const signInHeaderOf = (get: (name: string) => string | undefined) => get(signInHeader);

/**
 * The wallet address (lowercase) the signed message proves, for `resourceUrl` (the sign-in endpoint it was issued
 * for). Refuses a message for another URL or origin, too old, not of our nonce, already used, or whose signature does
 * not recover its address.
 */
export async function verifySignIn(
  deps: { prisma: PrismaClient; secret: string },
  header: string,
  resourceUrl: string,
): Promise<string> {
  let payload: ReturnType<typeof parseSIWxHeader>;
  try {
    payload = parseSIWxHeader(header);
  } catch (error) {
    throw new SignInRefusedError('invalid_siwx_header', (error as Error).message);
  }
  const validation = await validateSIWxMessage(payload, new URL(resourceUrl), {
    maxAge: challengeSeconds * 1000,
    checkNonce: (nonce) => isOurNonce(deps.secret, nonce, resourceUrl),
  });
  if (!validation.isValid) throw new SignInRefusedError(validation.invalidReason, validation.invalidMessage);
  if (payload.uri !== resourceUrl)
    throw new SignInRefusedError('invalid_siwx_uri_mismatch', `the message signs in at ${payload.uri}, not here`);
  // Wallets here are EVM addresses (x402's payers): a Solana signature names no account of ours.
  if (!payload.chainId.startsWith('eip155:'))
    throw new SignInRefusedError('invalid_siwx_unsupported_chain', `sign in on an EVM chain, not ${payload.chainId}`);
  const verified = await verifySIWxSignature(payload);
  if (!verified.isValid) throw new SignInRefusedError(verified.invalidReason, verified.invalidMessage);
  try {
    await deps.prisma.siwxNonce.create({ data: { nonce: payload.nonce } });
    // Used nonces matter only while their messages are young enough to be taken: older ones go, now and then.
    if (Math.random() < 0.01) {
      const stale = new Date(Date.now() - 2 * challengeSeconds * 1000);
      await deps.prisma.siwxNonce.deleteMany({ where: { usedAt: { lt: stale } } });
    }
  } catch (error) {
    if (error instanceof Prisma.PrismaClientKnownRequestError && error.code === 'P2002')
      throw new SignInRefusedError('invalid_siwx_nonce', 'this signed message was used already; sign a new challenge');
    throw error;
  }
  return verified.payer.toLowerCase();
}
