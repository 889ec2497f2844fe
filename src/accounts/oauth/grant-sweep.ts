// The OAuth sweep's one page: what an expired code, refresh token or answered request guarded is gone, so its row goes;
// a code that expired unredeemed takes its grant with it (the key was made at consent, and no host will ever hold a
// token of it); a dynamic registration never granted anything in a day is dropped (anyone may register, for free).
import type { PrismaClient } from '../../db/prisma.ts';
import { revokeApiKey } from '../api-keys.ts';

const unusedRegistrationMs = 86_400_000;

/** One page of each kind (up to `limit`), named by what they were for: `grant:<key>`, `code:<key>`, `client:<id>`, …. */
export async function sweepOAuthGrants(prisma: PrismaClient, limit: number, now = new Date()): Promise<string[]> {
  const expired = { expiresAt: { lte: now } };
  const unredeemed = await prisma.oAuthCode.findMany({ where: { usedAt: null, ...expired }, take: limit });
  // Sequential: a page is small, and each revocation is the key's own update.
  for (const code of unredeemed) await revokeApiKey(prisma, code.apiKeyId);
  const codes = [
    ...unredeemed,
    ...(await prisma.oAuthCode.findMany({ where: { usedAt: { not: null }, ...expired }, take: limit })),
  ];
  await prisma.oAuthCode.deleteMany({ where: { codeHash: { in: codes.map((code) => code.codeHash) } } });

  const refreshTokens = await prisma.oAuthRefreshToken.findMany({ where: expired, take: limit });
  await prisma.oAuthRefreshToken.deleteMany({
    where: { tokenHash: { in: refreshTokens.map((token) => token.tokenHash) } },
  });

  const requests = await prisma.oAuthAnsweredRequest.findMany({ where: expired, take: limit, select: { id: true } });
  await prisma.oAuthAnsweredRequest.deleteMany({ where: { id: { in: requests.map((request) => request.id) } } });

  // Registrations only (a metadata document's client is its cache); the delete checks again, a grant may be under way.
  const unused = {
    fetchedAt: null,
    createdAt: { lte: new Date(now.getTime() - unusedRegistrationMs) },
    grants: { none: {} },
    codes: { none: {} },
    refreshTokens: { none: {} },
  };
  const clients = await prisma.oAuthClient.findMany({ where: unused, take: limit, select: { id: true } });
  await prisma.oAuthClient.deleteMany({ where: { ...unused, id: { in: clients.map((client) => client.id) } } });

  return [
    ...unredeemed.map((code) => `grant:${code.apiKeyId}`),
    ...codes.map((code) => `code:${code.apiKeyId}`),
    ...refreshTokens.map((token) => `refresh_token:${token.apiKeyId}`),
    ...requests.map((request) => `request:${request.id}`),
    ...clients.map((client) => `client:${client.id}`),
  ];
}
