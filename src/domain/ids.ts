import { createHash, createHmac, randomBytes } from 'node:crypto';

const base62Alphabet = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

/** Bytes as base62 (URL- and double-click-safe), zero-padded to the length their size needs: 32 bytes → 43 characters. */
export function toBase62(bytes: Buffer): string {
  let value = BigInt(`0x${bytes.toString('hex') || '0'}`);
  let text = '';
  while (value > 0n) {
    text = base62Alphabet[Number(value % 62n)] + text;
    value /= 62n;
  }
  return text.padStart(Math.ceil((bytes.length * 8) / Math.log2(62)), '0');
}

export const randomBase62 = (bytes: number) => toBase62(randomBytes(bytes));

/** Public identifiers: a type prefix and 16 random bytes, e.g. `agt_3kXq…`. */
export type IdPrefix = 'agt' | 'dev' | 'wal' | 'key' | 'gen' | 'dep' | 'whd' | 'msg' | 'upl' | 'top';
export const newId = (prefix: IdPrefix) => `${prefix}_${randomBase62(16)}`;

/** The same name always gives the same id: for ids that must be derivable, like a task's from its Idempotency-Key. */
export const derivedId = (prefix: IdPrefix, name: string) =>
  `${prefix}_${toBase62(createHash('sha256').update(name).digest().subarray(0, 16))}`;

/** Like derivedId, but only who holds `secret` can derive it: for ids made of public facts. */
export const secretDerivedId = (prefix: IdPrefix, secret: string, name: string) =>
  `${prefix}_${toBase62(createHmac('sha256', secret).update(name).digest().subarray(0, 16))}`;

/** Standard Webhooks signing secret: `whsec_` + base64 of 24 random bytes. */
export const newWebhookSecret = () => `whsec_${randomBytes(24).toString('base64')}`;
