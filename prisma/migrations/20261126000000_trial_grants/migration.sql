-- The trial credit's guardrails count grants per network (an IPv4 address or an IPv6 /48) and across the whole
-- server per 24 hours; one row per grant keeps both counts on an index.
CREATE TABLE "trial_grants" (
    "account_id" TEXT NOT NULL,
    "network" TEXT NOT NULL,
    "granted_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "trial_grants_pkey" PRIMARY KEY ("account_id")
);

CREATE INDEX "trial_grants_network_granted_at_idx" ON "trial_grants"("network", "granted_at");
CREATE INDEX "trial_grants_granted_at_idx" ON "trial_grants"("granted_at");

ALTER TABLE "trial_grants" ADD CONSTRAINT "trial_grants_account_id_fkey" FOREIGN KEY ("account_id") REFERENCES "accounts"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- Trials granted before this migration, under their network: an IPv6 /64 (a:b:c:d::/64) becomes its /48.
INSERT INTO "trial_grants" ("account_id", "network", "granted_at")
SELECT e."account_id",
       CASE WHEN a."client_address" LIKE '%::/64'
            THEN split_part(a."client_address", ':', 1) || ':' || split_part(a."client_address", ':', 2) || ':' ||
                 split_part(a."client_address", ':', 3) || '::/48'
            ELSE coalesce(a."client_address", 'unknown') END,
       e."created_at"
FROM "ledger_entries" e JOIN "accounts" a ON a."id" = e."account_id"
WHERE e."kind" = 'trial_credit'
ON CONFLICT DO NOTHING;
