-- Keys with scopes and spend policies, sub-keys, the key that created each task, and each key's spend by day.
ALTER TABLE "api_keys" ADD COLUMN "scopes" TEXT[] DEFAULT ARRAY['generate', 'read', 'keys']::TEXT[],
ADD COLUMN "policy" JSONB,
ADD COLUMN "parent_id" TEXT;

ALTER TABLE "tasks" ADD COLUMN "api_key_id" TEXT;

CREATE TABLE "key_spend" (
    "api_key_id" TEXT NOT NULL,
    "day" DATE NOT NULL,
    "charged" BIGINT NOT NULL DEFAULT 0,
    "reserved" BIGINT NOT NULL DEFAULT 0,

    CONSTRAINT "key_spend_pkey" PRIMARY KEY ("api_key_id","day"),
    -- A release never takes back more than its admission reserved.
    CONSTRAINT "key_spend_reserved_check" CHECK ("reserved" >= 0),
    CONSTRAINT "key_spend_charged_check" CHECK ("charged" >= 0)
);

CREATE INDEX "tasks_api_key_id_created_at_idx" ON "tasks"("api_key_id", "created_at");

-- The api processes count revoked keys twice a second to drop their key caches (src/accounts/api-key-cache.ts).
CREATE INDEX "api_keys_revoked_at_idx" ON "api_keys"("revoked_at");

ALTER TABLE "api_keys" ADD CONSTRAINT "api_keys_parent_id_fkey" FOREIGN KEY ("parent_id") REFERENCES "api_keys"("id") ON DELETE SET NULL ON UPDATE CASCADE;

ALTER TABLE "key_spend" ADD CONSTRAINT "key_spend_api_key_id_fkey" FOREIGN KEY ("api_key_id") REFERENCES "api_keys"("id") ON DELETE CASCADE ON UPDATE CASCADE;

ALTER TABLE "tasks" ADD CONSTRAINT "tasks_api_key_id_fkey" FOREIGN KEY ("api_key_id") REFERENCES "api_keys"("id") ON DELETE SET NULL ON UPDATE CASCADE;
