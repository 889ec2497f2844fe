-- x402, round two: balances topped up by an x402 payment (one row per payment, settled then credited once), agents
-- tied to the wallet that paid for their registration (it can sign in to recover a key), the client's payment
-- identifier beside each payment, used Sign-In-with-X nonces, and the key that signs receipts.
ALTER TYPE "LedgerEntryKind" ADD VALUE 'x402_topup';

ALTER TABLE "accounts" ADD COLUMN "wallet_address" TEXT;
CREATE INDEX "accounts_wallet_address_idx" ON "accounts"("wallet_address");

CREATE TABLE "x402_topups" (
    "id" TEXT NOT NULL,
    "account_id" TEXT NOT NULL,
    "scheme" TEXT NOT NULL,
    "network" TEXT NOT NULL,
    "asset" TEXT NOT NULL,
    "payer" TEXT NOT NULL,
    "pay_to" TEXT NOT NULL,
    "nonce" TEXT NOT NULL,
    "amount" BIGINT NOT NULL,
    "valid_before" TIMESTAMPTZ(3) NOT NULL,
    "payload" JSONB NOT NULL,
    "requirement" JSONB NOT NULL,
    "payment_id" TEXT,
    "status" TEXT NOT NULL DEFAULT 'authorized',
    "transaction" TEXT,
    "error" TEXT,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "settled_at" TIMESTAMPTZ(3),

    CONSTRAINT "x402_topups_pkey" PRIMARY KEY ("id"),
    CONSTRAINT "x402_topups_amount_positive" CHECK ("amount" > 0)
);

CREATE UNIQUE INDEX "x402_topups_network_asset_payer_nonce_key" ON "x402_topups"("network", "asset", "payer", "nonce");
CREATE UNIQUE INDEX "x402_topups_payer_payment_id_key" ON "x402_topups"("payer", "payment_id");
CREATE INDEX "x402_topups_account_id_created_at_idx" ON "x402_topups"("account_id", "created_at");
ALTER TABLE "x402_topups" ADD CONSTRAINT "x402_topups_account_id_fkey" FOREIGN KEY ("account_id") REFERENCES "accounts"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

ALTER TABLE "x402_payments" ADD COLUMN "payment_id" TEXT;
CREATE UNIQUE INDEX "x402_payments_payer_payment_id_key" ON "x402_payments"("payer", "payment_id");

-- A nonce the gateway issued, once it signed someone in: the same signed message is not taken twice.
CREATE TABLE "siwx_nonces" (
    "nonce" TEXT NOT NULL,
    "used_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "siwx_nonces_pkey" PRIMARY KEY ("nonce")
);

-- Asymmetric signing keys (the receipts' ES256 key), made by the first process that needs one.
CREATE TABLE "signing_keys" (
    "id" TEXT NOT NULL,
    "private_jwk" JSONB NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "signing_keys_pkey" PRIMARY KEY ("id")
);
