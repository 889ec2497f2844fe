-- A deposit is keyed by its place among its receipt's USDC transfers, not by its block-wide log index, which a
-- reorganisation changes (the same transfer seen again made a second row, and the first stayed pending). Rows
-- written before take their rank among their transaction's rows by log index: exact for a transaction whose USDC
-- transfers all paid our agents; credits made under the old ledger keys are still found by their log index.
ALTER TABLE "deposits" ADD COLUMN "transfer_index" INTEGER;
UPDATE "deposits" AS d SET "transfer_index" = ranked.rank
FROM (
    SELECT id, (ROW_NUMBER() OVER (PARTITION BY chain, tx_hash ORDER BY log_index, id) - 1)::int AS rank
    FROM "deposits"
) AS ranked
WHERE d.id = ranked.id;
ALTER TABLE "deposits" ALTER COLUMN "transfer_index" SET NOT NULL;
DROP INDEX "deposits_chain_tx_hash_log_index_key";
CREATE UNIQUE INDEX "deposits_chain_tx_hash_transfer_index_key" ON "deposits"("chain", "tx_hash", "transfer_index");
