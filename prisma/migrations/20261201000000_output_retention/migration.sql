-- Output retention: when the sweep deleted an ended task's stored files (its outputs, and any a failed task left
-- behind); null while they are kept. The index finds the ended tasks not yet swept, oldest first.
ALTER TABLE "tasks" ADD COLUMN "outputs_deleted_at" TIMESTAMPTZ(3);

CREATE INDEX "tasks_outputs_deleted_at_completed_at_idx" ON "tasks"("outputs_deleted_at", "completed_at");
