// The keys that sign offers and receipts (ES256), one each, so an offer never passes for a receipt: rows in PostgreSQL,
// sealed under SIGNING_KEYS_SECRET, made by whichever process needs one first, so every api and worker process of a
// cluster signs with them and the DID document publishes them.
import { createPrivateKey, createPublicKey, generateKeyPairSync, type JsonWebKey, type KeyObject } from 'node:crypto';
import type { PrismaClient } from '../../db/prisma.ts';
import { openPrivateKey, sealPrivateKey } from './sealed-key.ts';

/** What a key signs: its row's id is `<purpose>-es256`, its DID fragment `<purpose>-1`. */
export type KeyPurpose = 'offers' | 'receipts';

export interface SigningKey {
  privateKey: KeyObject;
  /** The public half as a JWK (what verifiers resolve from the DID document). */
  publicJwk: JsonWebKey;
}

function keyOf(privateJwk: JsonWebKey): SigningKey {
  const privateKey = createPrivateKey({ key: privateJwk, format: 'jwk' });
  const { kty, crv, x, y } = createPublicKey(privateKey).export({ format: 'jwk' });
  return { privateKey, publicJwk: { kty, crv, x, y } };
}

/** One purpose's key, read once per process (made on first use). */
function keySource(prisma: PrismaClient, secret: string, purpose: KeyPurpose): () => Promise<SigningKey> {
  const id = `${purpose}-es256`;
  let key: Promise<SigningKey> | undefined;
  const read = async () => {
    const made = generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey.export({ format: 'jwk' });
    const sealedPrivateKey = sealPrivateKey(secret, id, made);
    await prisma.signingKey.createMany({ data: [{ id, sealedPrivateKey }], skipDuplicates: true });
    const row = await prisma.signingKey.findUniqueOrThrow({ where: { id } });
    return keyOf(openPrivateKey(secret, id, row.sealedPrivateKey) as JsonWebKey);
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

export type SigningKeys = Record<KeyPurpose, () => Promise<SigningKey>>;

/** The offer key and the receipt key. */
export function signingKeySources(prisma: PrismaClient, secret: string): SigningKeys {
  return { offers: keySource(prisma, secret, 'offers'), receipts: keySource(prisma, secret, 'receipts') };
}
