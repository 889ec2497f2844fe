// The key that signs offers and receipts (ES256): one row in PostgreSQL, made by whichever process needs it first, so
// every api and worker process of a cluster signs with it and the DID document publishes it.
import { createPrivateKey, createPublicKey, generateKeyPairSync, type JsonWebKey, type KeyObject } from 'node:crypto';
import type { PrismaClient } from '../../db/prisma.ts';

const keyId = 'receipts-es256';

export interface ReceiptKey {
  privateKey: KeyObject;
  /** The public half as a JWK (what verifiers resolve from the DID document). */
  publicJwk: JsonWebKey;
}

function keyOf(privateJwk: JsonWebKey): ReceiptKey {
  const privateKey = createPrivateKey({ key: privateJwk, format: 'jwk' });
  const { kty, crv, x, y } = createPublicKey(privateKey).export({ format: 'jwk' });
  return { privateKey, publicJwk: { kty, crv, x, y } };
}

/** The key, read once per process (made on first use). */
export function receiptKeySource(prisma: PrismaClient): () => Promise<ReceiptKey> {
  let key: Promise<ReceiptKey> | undefined;
  const read = async () => {
    const made = generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey.export({ format: 'jwk' });
    await prisma.signingKey.createMany({ data: [{ id: keyId, privateJwk: made as object }], skipDuplicates: true });
    const row = await prisma.signingKey.findUniqueOrThrow({ where: { id: keyId } });
    return keyOf(row.privateJwk as JsonWebKey);
  };
  return () => {
    // A failed read is not kept: the next request tries again.
    key ??= read().catch((error: unknown) => {
      key = undefined;
      throw error;
    });
    return key;
  };
}

export type ReceiptKeySource = ReturnType<typeof receiptKeySource>;
