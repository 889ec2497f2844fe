-- What GET /generations/{id} tells of a running task: when it started, and its provider's latest progress report.
ALTER TABLE "tasks" ADD COLUMN "started_at" TIMESTAMPTZ(3),
ADD COLUMN "progress" JSONB;
