-- A replay's link to the failed task it re-runs (genctl tasks replay). Unique: a task is replayed at most once,
-- whichever batch gets there first; the index also answers "was it replayed already?".
ALTER TABLE "tasks" ADD COLUMN "replay_of" TEXT;

CREATE UNIQUE INDEX "tasks_replay_of_key" ON "tasks"("replay_of");

ALTER TABLE "tasks" ADD CONSTRAINT "tasks_replay_of_fkey" FOREIGN KEY ("replay_of") REFERENCES "tasks"("id") ON DELETE RESTRICT ON UPDATE CASCADE;
