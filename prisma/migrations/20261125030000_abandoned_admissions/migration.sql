-- A workflow run's admission is decided once. A run that gave up on its admission (or refused it) leaves a row here
-- under the task's admission lock, so an attempt of that run still under way can never commit a reservation after it.
CREATE TABLE "abandoned_admissions" (
    "task_id" TEXT NOT NULL,
    "run_id" TEXT NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "abandoned_admissions_pkey" PRIMARY KEY ("task_id","run_id")
);

CREATE INDEX "abandoned_admissions_created_at_idx" ON "abandoned_admissions"("created_at");
