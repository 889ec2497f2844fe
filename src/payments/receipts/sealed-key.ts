// A private key as PostgreSQL keeps it: AES-256-GCM under a key derived from SIGNING_KEYS_SECRET, bound to its row's id,
// so reading the database (a dump, a replica, a backup) gives no signing key, and no row can stand in for another.
import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from 'node:crypto';

const version = 'v1';

const sealingKey = (secret: string) =>
  Buffer.from(hkdfSync('sha256', secret, Buffer.alloc(0), 'gateway signing keys', 32));

/** `v1.<iv>.<ciphertext>.<tag>`, base64url. */
export function sealPrivateKey(secret: string, id: string, privateJwk: object): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', sealingKey(secret), iv).setAAD(Buffer.from(id));
  const sealed = Buffer.concat([cipher.update(JSON.stringify(privateJwk)), cipher.final()]);
  return [version, iv, sealed, cipher.getAuthTag()].map((part) => part.toString('base64url')).join('.');
}

export class UnsealableKeyError extends Error {
  override name = 'UnsealableKeyError';
}

export function openPrivateKey(secret: string, id: string, sealed: string): object {
  const [given, iv, data, tag] = sealed.split('.');
  if (given !== version || !iv || !data || !tag)
    throw new UnsealableKeyError(`signing key ${id} is not sealed (${version})`);
  try {
    const decipher = createDecipheriv('aes-256-gcm', sealingKey(secret), Buffer.from(iv, 'base64url'))
      .setAAD(Buffer.from(id))
      .setAuthTag(Buffer.from(tag, 'base64url'));
    const plain = Buffer.concat([decipher.update(Buffer.from(data, 'base64url')), decipher.final()]);
    return JSON.parse(plain.toString('utf8')) as object;
  } catch {
    throw new UnsealableKeyError(
      `signing key ${id} does not open with SIGNING_KEYS_SECRET: it was sealed under another secret (delete the signing_keys rows to make new keys)`,
    );
  }
}
