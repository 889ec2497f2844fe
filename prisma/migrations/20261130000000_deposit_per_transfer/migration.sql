-- A deposit is one USDC transfer log: one transaction may pay several agents (a multisend, a Safe batch), and each
-- transfer is credited on its own. Rows written before always held their first transfer's log index; a row without
-- one (none is written so) takes 0, still unique since (chain, tx_hash) was.
UPDATE "deposits" SET "log_index" = 0 WHERE "log_index" IS NULL;
ALTER TABLE "deposits" ALTER COLUMN "log_index" SET NOT NULL;
DROP INDEX "deposits_chain_tx_hash_key";
CREATE UNIQUE INDEX "deposits_chain_tx_hash_log_index_key" ON "deposits"("chain", "tx_hash", "log_index");
