// A wallet signed in (Sign-In-with-X) gets a read token for its own account: `wt_` and a JWT (HS256 with the
// wallet sessions' own key) naming its wallet account, valid an hour. It reads that account's x402 tasks, their events
// and outputs; it creates, cancels and manages nothing.
import { randomUUID } from 'node:crypto';
import { jwtVerify, SignJWT } from 'jose';
import type { TokenSite } from './oauth/access-tokens.ts';

export const walletSessionSeconds = 3600;
const prefix = 'wt_';
const audience = (issuer: string) => `${issuer}/api/v1`;

export const isWalletSessionToken = (token: string) => token.startsWith(prefix);

export async function signWalletSession(site: TokenSite, accountId: string, now = new Date()) {
  const expiresAt = new Date(now.getTime() + walletSessionSeconds * 1000);
  const jwt = await new SignJWT({ scope: 'read' })
    .setProtectedHeader({ alg: 'HS256', typ: 'wallet+jwt' })
    .setIssuer(site.issuer)
    .setSubject(accountId)
    .setAudience(audience(site.issuer))
    .setIssuedAt(Math.floor(now.getTime() / 1000))
    .setExpirationTime(Math.floor(expiresAt.getTime() / 1000))
    .setJti(randomUUID())
    .sign(site.keys.wallet_session);
  return { token: `${prefix}${jwt}`, expiresAt };
}

/** The wallet account a session token names, or null when it is not one of ours (forged, expired). */
export async function verifyWalletSession(site: TokenSite, token: string): Promise<string | null> {
  if (!isWalletSessionToken(token)) return null;
  try {
    const { payload } = await jwtVerify(token.slice(prefix.length), site.keys.wallet_session, {
      issuer: site.issuer,
      audience: audience(site.issuer),
      typ: 'wallet+jwt',
      algorithms: ['HS256'],
      requiredClaims: ['sub', 'exp'],
    });
    return payload.sub!;
  } catch {
    return null;
  }
}
