-- Callers' uploaded input files (POST /api/v1/uploads): the file lives in storage under "key"; the row says whose it
-- is and until when. Expired or deleted rows keep "deleted_at"; live ones count to the account's quota.
CREATE TABLE "uploads" (
    "id" TEXT NOT NULL,
    "account_id" TEXT NOT NULL,
    "key" TEXT NOT NULL,
    "content_type" TEXT NOT NULL,
    "size" BIGINT NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "expires_at" TIMESTAMPTZ(3) NOT NULL,
    "deleted_at" TIMESTAMPTZ(3),

    CONSTRAINT "uploads_pkey" PRIMARY KEY ("id")
);

CREATE UNIQUE INDEX "uploads_key_key" ON "uploads"("key");

CREATE INDEX "uploads_account_id_deleted_at_idx" ON "uploads"("account_id", "deleted_at");

CREATE INDEX "uploads_expires_at_idx" ON "uploads"("expires_at");

ALTER TABLE "uploads" ADD CONSTRAINT "uploads_account_id_fkey" FOREIGN KEY ("account_id") REFERENCES "accounts"("id") ON DELETE RESTRICT ON UPDATE CASCADE;
