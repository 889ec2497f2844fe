-- Deposits are attributed by the address they were sent to: each agent's derived address is stored (lowercase) so
-- a Transfer log's recipient finds its agent. A deposit row records why it was rejected, and when it last moved.
ALTER TABLE "accounts" ADD COLUMN "deposit_address" TEXT;
CREATE UNIQUE INDEX "accounts_deposit_address_key" ON "accounts"("deposit_address");

ALTER TABLE "deposits" ADD COLUMN "reason" TEXT;
ALTER TABLE "deposits" ADD COLUMN "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP;
