-- Usage by the hour a task ended (when its cost was settled), per account, key, model and type: GET /usage reads
-- these, never the tasks. The settling transaction adds to its row (src/generations/usage-aggregates.ts).
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
    "units" JSONB NOT NULL DEFAULT '{}',

    CONSTRAINT "usage_hourly_pkey" PRIMARY KEY ("account_id","hour","api_key_id","model","type")
);

ALTER TABLE "usage_hourly" ADD CONSTRAINT "usage_hourly_account_id_fkey" FOREIGN KEY ("account_id") REFERENCES "accounts"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- Tasks that ended before this table: counted, charged and released as their ledger says (the units they were
-- priced in are not on the row: theirs stay empty). A task's last charge or release entry is its end (an x402 task
-- that failed has neither: its own end).
INSERT INTO "usage_hourly" ("account_id", "hour", "api_key_id", "model", "type", "completed", "failed", "cancelled", "cost", "refunded")
SELECT t.account_id, date_trunc('hour', coalesce(e.created_at, t.completed_at, t.updated_at), 'UTC'), coalesce(t.api_key_id, ''), t.model, t.type,
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

-- Two rows' units added name by name ({"images": 2} + {"images": 1, "texts": 1} = {"images": 3, "texts": 1}).
CREATE FUNCTION usage_units_sum(a JSONB, b JSONB) RETURNS JSONB LANGUAGE sql IMMUTABLE AS $$
  SELECT coalesce(jsonb_object_agg(name, total), '{}'::jsonb)
  FROM (SELECT name, sum(value::numeric) AS total
        FROM (SELECT * FROM jsonb_each_text(a) UNION ALL SELECT * FROM jsonb_each_text(b)) AS pairs (name, value)
        GROUP BY name) AS sums
$$;
