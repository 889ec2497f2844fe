-- The keys that sign offers and receipts are kept sealed (AES-256-GCM under SIGNING_KEYS_SECRET), one for offers and one
-- for receipts. The one plaintext key is dropped, not sealed: whoever read the database may hold it. Receipts are signed
-- when asked for, so they verify again under the new keys, made on first use.
DELETE FROM "signing_keys";
ALTER TABLE "signing_keys" DROP COLUMN "private_jwk";
ALTER TABLE "signing_keys" ADD COLUMN "sealed_private_key" TEXT NOT NULL;
