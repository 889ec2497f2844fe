// The HMAC secret OAuth's signed tokens use (access tokens, pending authorization requests): one row in PostgreSQL,
// made by whichever process needs it first, so every api process of a cluster signs and verifies alike.
import { randomBytes } from 'node:crypto';
import type { PrismaClient } from '../../db/prisma.ts';

const secretId = 'hs256';

/** The secret, read once per process (made on first use). */
export function oauthSecretSource(prisma: PrismaClient): () => Promise<Uint8Array> {
  let secret: Promise<Uint8Array> | undefined;
  const read = async () => {
    await prisma.oAuthSecret.createMany({ data: [{ id: secretId, secret: randomBytes(32) }], skipDuplicates: true });
    const row = await prisma.oAuthSecret.findUniqueOrThrow({ where: { id: secretId } });
    return new Uint8Array(row.secret);
  };
  return () => {
    // A failed read is not kept: the next request tries again.
    secret ??= read().catch((error: unknown) => {
      secret = undefined;
      throw error;
    });
    return secret;
  };
}
