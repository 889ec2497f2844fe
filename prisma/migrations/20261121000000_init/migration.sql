-- CreateEnum
CREATE TYPE "AccountKind" AS ENUM ('agent', 'developer');

-- CreateEnum
CREATE TYPE "Tier" AS ENUM ('free', 'starter', 'pro', 'enterprise');

-- CreateEnum
CREATE TYPE "TaskStatus" AS ENUM ('queued', 'processing', 'completed', 'failed');

-- CreateEnum
CREATE TYPE "LedgerEntryKind" AS ENUM ('trial_credit', 'deposit', 'reserve', 'charge', 'release', 'adjustment');

-- CreateTable
CREATE TABLE "accounts" (
    "id" TEXT NOT NULL,
    "kind" "AccountKind" NOT NULL,
    "name" TEXT NOT NULL,
    "tier" "Tier",
    "status" TEXT NOT NULL DEFAULT 'active',
    "platform" TEXT,
    "platform_version" TEXT,
    "source" TEXT,
    "webhook_url" TEXT,
    "webhook_secret" TEXT,
    "deposit_index" INTEGER,
    "client_address" TEXT,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "accounts_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "api_keys" (
    "id" TEXT NOT NULL,
    "account_id" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "key_hash" TEXT NOT NULL,
    "key_prefix" TEXT NOT NULL,
    "last_used_at" TIMESTAMPTZ(3),
    "expires_at" TIMESTAMPTZ(3),
    "revoked_at" TIMESTAMPTZ(3),
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "api_keys_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "balances" (
    "account_id" TEXT NOT NULL,
    "balance" BIGINT NOT NULL DEFAULT 0,
    "reserved" BIGINT NOT NULL DEFAULT 0,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "balances_pkey" PRIMARY KEY ("account_id")
);

-- CreateTable
CREATE TABLE "ledger_entries" (
    "id" BIGSERIAL NOT NULL,
    "account_id" TEXT NOT NULL,
    "kind" "LedgerEntryKind" NOT NULL,
    "amount" BIGINT NOT NULL,
    "reserved_delta" BIGINT NOT NULL DEFAULT 0,
    "balance_after" BIGINT NOT NULL,
    "reserved_after" BIGINT NOT NULL,
    "idempotency_key" TEXT NOT NULL,
    "task_id" TEXT,
    "memo" TEXT,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "ledger_entries_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "tasks" (
    "id" TEXT NOT NULL,
    "account_id" TEXT NOT NULL,
    "type" TEXT NOT NULL,
    "model" TEXT NOT NULL,
    "status" "TaskStatus" NOT NULL DEFAULT 'queued',
    "request" JSONB NOT NULL,
    "prompt" TEXT,
    "output" TEXT,
    "outputs" TEXT[] DEFAULT ARRAY[]::TEXT[],
    "error" TEXT,
    "aspect_ratio" TEXT,
    "duration" INTEGER,
    "resolution" TEXT,
    "num_outputs" INTEGER,
    "cost_reserved" BIGINT NOT NULL,
    "cost_charged" BIGINT,
    "webhook_url" TEXT,
    "idempotency_key" TEXT,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,
    "completed_at" TIMESTAMPTZ(3),

    CONSTRAINT "tasks_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "deposits" (
    "id" TEXT NOT NULL,
    "account_id" TEXT NOT NULL,
    "chain" TEXT NOT NULL,
    "tx_hash" TEXT NOT NULL,
    "log_index" INTEGER,
    "from_address" TEXT,
    "to_address" TEXT,
    "amount" BIGINT,
    "block_number" BIGINT,
    "status" TEXT NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "credited_at" TIMESTAMPTZ(3),

    CONSTRAINT "deposits_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "webhook_deliveries" (
    "id" TEXT NOT NULL,
    "message_id" TEXT NOT NULL,
    "account_id" TEXT,
    "task_id" TEXT,
    "event" TEXT NOT NULL,
    "url" TEXT NOT NULL,
    "attempt" INTEGER NOT NULL,
    "status_code" INTEGER,
    "error" TEXT,
    "duration_ms" INTEGER,
    "next_attempt_at" TIMESTAMPTZ(3),
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "webhook_deliveries_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE UNIQUE INDEX "accounts_deposit_index_key" ON "accounts"("deposit_index");

-- CreateIndex
CREATE INDEX "accounts_client_address_created_at_idx" ON "accounts"("client_address", "created_at");

-- CreateIndex
CREATE UNIQUE INDEX "api_keys_key_hash_key" ON "api_keys"("key_hash");

-- CreateIndex
CREATE INDEX "api_keys_account_id_idx" ON "api_keys"("account_id");

-- CreateIndex
CREATE UNIQUE INDEX "ledger_entries_idempotency_key_key" ON "ledger_entries"("idempotency_key");

-- CreateIndex
CREATE INDEX "ledger_entries_account_id_created_at_idx" ON "ledger_entries"("account_id", "created_at");

-- CreateIndex
CREATE INDEX "ledger_entries_task_id_idx" ON "ledger_entries"("task_id");

-- CreateIndex
CREATE INDEX "tasks_account_id_created_at_idx" ON "tasks"("account_id", "created_at");

-- CreateIndex
CREATE INDEX "tasks_status_created_at_idx" ON "tasks"("status", "created_at");

-- CreateIndex
CREATE UNIQUE INDEX "tasks_account_id_idempotency_key_key" ON "tasks"("account_id", "idempotency_key");

-- CreateIndex
CREATE INDEX "deposits_account_id_created_at_idx" ON "deposits"("account_id", "created_at");

-- CreateIndex
CREATE UNIQUE INDEX "deposits_chain_tx_hash_key" ON "deposits"("chain", "tx_hash");

-- CreateIndex
CREATE INDEX "webhook_deliveries_message_id_attempt_idx" ON "webhook_deliveries"("message_id", "attempt");

-- CreateIndex
CREATE INDEX "webhook_deliveries_task_id_idx" ON "webhook_deliveries"("task_id");

-- AddForeignKey
ALTER TABLE "api_keys" ADD CONSTRAINT "api_keys_account_id_fkey" FOREIGN KEY ("account_id") REFERENCES "accounts"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "balances" ADD CONSTRAINT "balances_account_id_fkey" FOREIGN KEY ("account_id") REFERENCES "accounts"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "ledger_entries" ADD CONSTRAINT "ledger_entries_account_id_fkey" FOREIGN KEY ("account_id") REFERENCES "accounts"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "tasks" ADD CONSTRAINT "tasks_account_id_fkey" FOREIGN KEY ("account_id") REFERENCES "accounts"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "deposits" ADD CONSTRAINT "deposits_account_id_fkey" FOREIGN KEY ("account_id") REFERENCES "accounts"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "webhook_deliveries" ADD CONSTRAINT "webhook_deliveries_account_id_fkey" FOREIGN KEY ("account_id") REFERENCES "accounts"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- Money invariants Prisma cannot express (DESIGN §3): 0 <= reserved <= balance.
ALTER TABLE "balances" ADD CONSTRAINT "balances_reserved_nonnegative" CHECK ("reserved" >= 0);
ALTER TABLE "balances" ADD CONSTRAINT "balances_reserved_within_balance" CHECK ("reserved" <= "balance");

-- The ledger is append-only: corrections are new entries, never edits.
CREATE FUNCTION "ledger_entries_append_only"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    RAISE EXCEPTION 'ledger_entries is append-only';
END;
$$;
CREATE TRIGGER "ledger_entries_no_update_delete" BEFORE UPDATE OR DELETE ON "ledger_entries"
    FOR EACH ROW EXECUTE FUNCTION "ledger_entries_append_only"();
