-- The measured length (seconds, rounded up) of the media inputs a task's price depends on: what it was reserved on,
-- and the least it is charged for, whatever the provider reports.
ALTER TABLE "tasks" ADD COLUMN "input_seconds" INTEGER;
