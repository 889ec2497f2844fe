-- Usage by the day and by the hour tasks ended (when their cost was settled), per account, key, model and type:
-- GET /usage sums whole days from usage_daily and the hours at a period's edges from usage_hourly, never the tasks.
-- The settling transaction adds to both (src/generations/usage-aggregates.ts). One column per pricing unit.
CREATE TABLE "usage_hourly" (
    "account_id" TEXT NOT NULL,
    "hour" TIMESTAMPTZ(3) NOT NULL,
    -- '' for tasks no key created (x402, or admitted before keys were recorded): a primary key takes no null.
    "api_key_id" TEXT NOT NULL DEFAULT '',
    "model" TEXT NOT NULL,
    "type" TEXT NOT NULL,
    "completed" BIGINT NOT NULL DEFAULT 0,
    "failed" BIGINT NOT NULL DEFAULT 0,
    "cancelled" BIGINT NOT NULL DEFAULT 0,
    "cost" BIGINT NOT NULL DEFAULT 0,
    "refunded" BIGINT NOT NULL DEFAULT 0,
    "requests" BIGINT NOT NULL DEFAULT 0,
    "images" BIGINT NOT NULL DEFAULT 0,
    "videos" BIGINT NOT NULL DEFAULT 0,
    "audio_files" BIGINT NOT NULL DEFAULT 0,
    "models_3d" BIGINT NOT NULL DEFAULT 0,
    "texts" BIGINT NOT NULL DEFAULT 0,
    "output_seconds" BIGINT NOT NULL DEFAULT 0,
    "characters" BIGINT NOT NULL DEFAULT 0,
    "input_minutes" BIGINT NOT NULL DEFAULT 0,
    "input_tokens" BIGINT NOT NULL DEFAULT 0,
    "output_tokens" BIGINT NOT NULL DEFAULT 0,

    CONSTRAINT "usage_hourly_pkey" PRIMARY KEY ("account_id","hour","api_key_id","model","type")
);

CREATE TABLE "usage_daily" (
    "account_id" TEXT NOT NULL,
    "day" DATE NOT NULL,
    "api_key_id" TEXT NOT NULL DEFAULT '',
    "model" TEXT NOT NULL,
    "type" TEXT NOT NULL,
    "completed" BIGINT NOT NULL DEFAULT 0,
    "failed" BIGINT NOT NULL DEFAULT 0,
    "cancelled" BIGINT NOT NULL DEFAULT 0,
    "cost" BIGINT NOT NULL DEFAULT 0,
    "refunded" BIGINT NOT NULL DEFAULT 0,
    "requests" BIGINT NOT NULL DEFAULT 0,
    "images" BIGINT NOT NULL DEFAULT 0,
    "videos" BIGINT NOT NULL DEFAULT 0,
    "audio_files" BIGINT NOT NULL DEFAULT 0,
    "models_3d" BIGINT NOT NULL DEFAULT 0,
    "texts" BIGINT NOT NULL DEFAULT 0,
    "output_seconds" BIGINT NOT NULL DEFAULT 0,
    "characters" BIGINT NOT NULL DEFAULT 0,
    "input_minutes" BIGINT NOT NULL DEFAULT 0,
    "input_tokens" BIGINT NOT NULL DEFAULT 0,
    "output_tokens" BIGINT NOT NULL DEFAULT 0,

    CONSTRAINT "usage_daily_pkey" PRIMARY KEY ("account_id","day","api_key_id","model","type")
);

ALTER TABLE "usage_hourly" ADD CONSTRAINT "usage_hourly_account_id_fkey" FOREIGN KEY ("account_id") REFERENCES "accounts"("id") ON DELETE CASCADE ON UPDATE CASCADE;

ALTER TABLE "usage_daily" ADD CONSTRAINT "usage_daily_account_id_fkey" FOREIGN KEY ("account_id") REFERENCES "accounts"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- Tasks that ended before these tables: counted, charged and released as their ledger says (the units they were
-- priced in are not on the row: theirs stay 0). A task's last charge or release entry is its end (an x402 task that
-- failed has neither: its own end).
INSERT INTO "usage_hourly" ("account_id", "hour", "api_key_id", "model", "type", "completed", "failed", "cancelled", "cost", "refunded")
SELECT t.account_id, date_trunc('hour', coalesce(e.created_at, t.completed_at, t.updated_at), 'UTC'),
       coalesce(t.api_key_id, ''), t.model, t.type,
       count(*) FILTER (WHERE t.status = 'completed'),
       count(*) FILTER (WHERE t.status = 'failed' AND t.error IS DISTINCT FROM 'cancelled'),
       count(*) FILTER (WHERE t.status = 'failed' AND t.error = 'cancelled'),
       coalesce(sum(-e.amount), 0),
       coalesce(sum(-e.reserved_delta + e.amount) FILTER (WHERE e.reserved_delta < 0), 0)
FROM tasks t
LEFT JOIN LATERAL (
  SELECT created_at, amount, reserved_delta FROM ledger_entries
  WHERE task_id = t.id AND account_id = t.account_id AND kind IN ('charge', 'release')
  ORDER BY id DESC LIMIT 1
) e ON true
WHERE t.status IN ('completed', 'failed')
GROUP BY 1, 2, 3, 4, 5;

INSERT INTO "usage_daily" ("account_id", "day", "api_key_id", "model", "type", "completed", "failed", "cancelled", "cost", "refunded")
SELECT account_id, (hour AT TIME ZONE 'UTC')::date, api_key_id, model, type,
       sum(completed), sum(failed), sum(cancelled), sum(cost), sum(refunded)
FROM usage_hourly
GROUP BY 1, 2, 3, 4, 5;
