-- usage_daily without the key: what a report not grouped or filtered by key sums (an account's days by model are read
-- as they are stored, not added up across its keys). The settling transaction adds to it beside the other two
-- (src/generations/usage-aggregates.ts).
CREATE TABLE "usage_daily_totals" (
    "account_id" TEXT NOT NULL,
    "day" DATE NOT NULL,
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

    CONSTRAINT "usage_daily_totals_pkey" PRIMARY KEY ("account_id","day","model","type")
);

ALTER TABLE "usage_daily_totals" ADD CONSTRAINT "usage_daily_totals_account_id_fkey" FOREIGN KEY ("account_id") REFERENCES "accounts"("id") ON DELETE CASCADE ON UPDATE CASCADE;

INSERT INTO "usage_daily_totals" ("account_id", "day", "model", "type", "completed", "failed", "cancelled", "cost",
    "refunded", "requests", "images", "videos", "audio_files", "models_3d", "texts", "output_seconds", "characters",
    "input_minutes", "input_tokens", "output_tokens")
SELECT account_id, day, model, type, sum(completed), sum(failed), sum(cancelled), sum(cost), sum(refunded),
       sum(requests), sum(images), sum(videos), sum(audio_files), sum(models_3d), sum(texts), sum(output_seconds),
       sum(characters), sum(input_minutes), sum(input_tokens), sum(output_tokens)
FROM usage_daily
GROUP BY 1, 2, 3, 4;
