// The keys that sign offers and receipts (issue 55, points 18 b and 8): PostgreSQL keeps them sealed under
// SIGNING_KEYS_SECRET, so reading the database gives no signing key; offers and receipts have a key each; a key sealed
// under another secret, or a row put in another's place, is refused rather than used; every process reads the same
// key; and the development secret is refused wherever it would matter.
import { createPublicKey } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config/config.ts';
import { signingKeySources } from '../../src/payments/receipts/signing-key.ts';
import { createTestDatabase, type TestDatabase } from '../helpers/database.ts';

const secret = 'a-secret-of-the-operator-that-is-long-enough';
let database: TestDatabase;

beforeAll(async () => {
  database = await createTestDatabase();
});
afterAll(() => database?.drop());

describe('signing keys at rest', () => {
  it('keeps no private key readable in the database, and one key each for offers and receipts', async () => {
    const keys = signingKeySources(database.prisma, secret);
    const [offers, receipts] = await Promise.all([keys.offers(), keys.receipts()]);
    expect(offers.publicJwk).not.toEqual(receipts.publicJwk);

    const rows = await database.prisma.$queryRaw<Record<string, unknown>[]>`SELECT * FROM signing_keys ORDER BY id`;
    expect(rows.map((row) => row.id)).toEqual(['offers-es256', 'receipts-es256']);
    const privateParts = [offers, receipts].map((key) => key.privateKey.export({ format: 'jwk' }).d!);
    const stored = JSON.stringify(rows);
    for (const d of privateParts) expect(stored).not.toContain(d);
    expect(Object.keys(rows[0]!).sort()).toEqual(['created_at', 'id', 'sealed_private_key']);
    expect(String(rows[0]!.sealed_private_key)).toMatch(/^v1\.[\w-]+\.[\w-]+\.[\w-]+$/);
  });

  it('gives another process the same keys, and refuses them under another secret', async () => {
    const first = await signingKeySources(database.prisma, secret).receipts();
    const again = await signingKeySources(database.prisma, secret).receipts();
    expect(again.publicJwk).toEqual(first.publicJwk);
    expect(createPublicKey(again.privateKey).export({ format: 'jwk' })).toMatchObject(first.publicJwk);
    await expect(signingKeySources(database.prisma, `${secret}-changed`).receipts()).rejects.toThrow(
      /does not open with SIGNING_KEYS_SECRET/,
    );
  });

  it('refuses a sealed key moved into another key’s row', async () => {
    const moved = await database.prisma.signingKey.findUniqueOrThrow({ where: { id: 'offers-es256' } });
    await database.prisma.signingKey.update({
      where: { id: 'receipts-es256' },
      data: { sealedPrivateKey: moved.sealedPrivateKey },
    });
    await expect(signingKeySources(database.prisma, secret).receipts()).rejects.toThrow(/receipts-es256 does not open/);
  });
});

describe('SIGNING_KEYS_SECRET in configuration', () => {
  const production = {
    NODE_ENV: 'production',
    PUBLIC_BASE_URL: 'https://gateway.example.com',
    OAUTH_TOKEN_SECRET: 'o'.repeat(64),
    TASK_ID_SECRET: 't'.repeat(40),
    BASE_RPC_URL: 'https://base.example',
    DEPOSIT_XPUB:
      'xpub6CUGRUonZSQ4TWtTMmzXdrXDtypWKiKrhko4egpiMZbpiaQL2jkwSB1icqYh2cfDfVxdx4df189oLKnC5fSwqPfgyP3hooxujYzAu3fDVmz',
  };

  it('refuses the development secret in production, naming the variable', () => {
    expect(() => loadConfig(production, [])).toThrow(ConfigError);
    expect(() => loadConfig(production, [])).toThrow(/SIGNING_KEYS_SECRET: the development secret is public/);
    expect(() => loadConfig({ ...production, SIGNING_KEYS_SECRET: 'short' }, [])).toThrow(/SIGNING_KEYS_SECRET/);
    expect(loadConfig({ ...production, SIGNING_KEYS_SECRET: secret }, []).receipts.signingKeysSecret).toBe(secret);
  });

  it('keeps the development secret for npm start', () => {
    expect(loadConfig({}, []).receipts.signingKeysSecret).toMatch(/^development-only-/);
  });
});
