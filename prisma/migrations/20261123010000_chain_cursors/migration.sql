-- The deposit watcher's place on each chain: the next block it will read. Advanced only after the deposits it
-- found were handed to their workflows, so a restart reads a block again rather than skipping it.
CREATE TABLE "chain_cursors" (
    "chain" TEXT NOT NULL,
    "next_block" BIGINT NOT NULL,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "chain_cursors_pkey" PRIMARY KEY ("chain")
);
