import { randomBytes } from 'node:crypto';

const base62Alphabet = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

/** `bytes` random bytes as base62 (URL- and double-click-safe); 32 bytes give 43 characters. */
export function randomBase62(bytes: number): string {
  let value = BigInt(`0x${randomBytes(bytes).toString('hex')}`);
  let text = '';
  while (value > 0n) {
    text = base62Alphabet[Number(value % 62n)] + text;
    value /= 62n;
  }
  const length = Math.ceil((bytes * 8) / Math.log2(62));
  return text.padStart(length, '0');
}

/** Public identifiers: a type prefix and 16 random bytes, e.g. `agt_3kXq…`. */
export const newId = (prefix: 'agt' | 'dev' | 'key' | 'gen' | 'dep' | 'whd') => `${prefix}_${randomBase62(16)}`;

/** Standard Webhooks signing secret: `whsec_` + base64 of 24 random bytes. */
export const newWebhookSecret = () => `whsec_${randomBytes(24).toString('base64')}`;
