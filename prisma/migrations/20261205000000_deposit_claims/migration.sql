-- Claims of transactions the gateway had no deposit of, so an account's pending claims (each a look-up of a hash
-- the chain may never know) can be capped.
CREATE TABLE "deposit_claims" (
    "account_id" TEXT NOT NULL,
    "chain" TEXT NOT NULL,
    "tx_hash" TEXT NOT NULL,
    "claimed_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "deposit_claims_pkey" PRIMARY KEY ("account_id","chain","tx_hash")
);

ALTER TABLE "deposit_claims" ADD CONSTRAINT "deposit_claims_account_id_fkey" FOREIGN KEY ("account_id") REFERENCES "accounts"("id") ON DELETE CASCADE ON UPDATE CASCADE;
