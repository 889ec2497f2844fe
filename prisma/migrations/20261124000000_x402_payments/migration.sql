-- x402: a payer without an account gets a `wallet` account on first payment; each payment is a row, verified at
-- admission and settled (a ledger entry of kind x402_payment) only once the task's outputs are stored.
ALTER TYPE "AccountKind" ADD VALUE 'wallet';
ALTER TYPE "LedgerEntryKind" ADD VALUE 'x402_payment';

CREATE TABLE "x402_payments" (
    "task_id" TEXT NOT NULL,
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
    "access_token" TEXT NOT NULL,
    "status" TEXT NOT NULL DEFAULT 'authorized',
    "amount_settled" BIGINT,
    "transaction" TEXT,
    "error" TEXT,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "settled_at" TIMESTAMPTZ(3),

    CONSTRAINT "x402_payments_pkey" PRIMARY KEY ("task_id"),
    CONSTRAINT "x402_payments_amount_positive" CHECK ("amount" > 0),
    CONSTRAINT "x402_payments_settled_within_authorized" CHECK ("amount_settled" IS NULL OR "amount_settled" BETWEEN 0 AND "amount")
);

CREATE UNIQUE INDEX "x402_payments_access_token_key" ON "x402_payments"("access_token");
CREATE INDEX "x402_payments_account_id_created_at_idx" ON "x402_payments"("account_id", "created_at");
CREATE UNIQUE INDEX "x402_payments_network_asset_payer_nonce_key" ON "x402_payments"("network", "asset", "payer", "nonce");

ALTER TABLE "x402_payments" ADD CONSTRAINT "x402_payments_task_id_fkey" FOREIGN KEY ("task_id") REFERENCES "tasks"("id") ON DELETE RESTRICT ON UPDATE CASCADE;
ALTER TABLE "x402_payments" ADD CONSTRAINT "x402_payments_account_id_fkey" FOREIGN KEY ("account_id") REFERENCES "accounts"("id") ON DELETE RESTRICT ON UPDATE CASCADE;
