-- Which events the account's webhook receives (generation.completed, deposit.credited, …); empty: every event.
ALTER TABLE "accounts" ADD COLUMN "webhook_events" TEXT[] NOT NULL DEFAULT ARRAY[]::TEXT[];
