-- Budget alerts: one row per key, budget window and threshold (80, 100) the key's spend reached, inserted by the
-- admission that reached it (ON CONFLICT DO NOTHING: the first alerts, no other). `notified_at` is set once its
-- webhook deliveries have started; the task reconciler starts those of rows still without it.
CREATE TABLE "key_budget_alerts" (
    "api_key_id" TEXT NOT NULL,
    "window_start" DATE NOT NULL,
    "threshold" INTEGER NOT NULL,
    "account_id" TEXT NOT NULL,
    "task_id" TEXT NOT NULL,
    "data" JSONB NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "notified_at" TIMESTAMPTZ(3),

    CONSTRAINT "key_budget_alerts_pkey" PRIMARY KEY ("api_key_id","window_start","threshold")
);

CREATE INDEX "key_budget_alerts_task_id_idx" ON "key_budget_alerts"("task_id");

CREATE INDEX "key_budget_alerts_notified_at_created_at_idx" ON "key_budget_alerts"("notified_at", "created_at");

ALTER TABLE "key_budget_alerts" ADD CONSTRAINT "key_budget_alerts_api_key_id_fkey" FOREIGN KEY ("api_key_id") REFERENCES "api_keys"("id") ON DELETE CASCADE ON UPDATE CASCADE;
