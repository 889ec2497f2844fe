-- The task event streams (GET /generations/{id}/events, GET /events): every change of a task's status or progress,
-- written by triggers on "tasks" so that every writer is covered and the hot path runs no extra code (one small
-- insert per change). Each insert notifies the api processes' one LISTEN connection at commit (pg_notify), which then
-- re-reads what its open streams have not sent yet. `tx_id` (the writing transaction) lets a stream over many tasks
-- send only what no transaction still in flight can precede, so a resumed stream loses nothing.
CREATE TABLE "task_events" (
    "id" BIGSERIAL NOT NULL,
    "task_id" TEXT NOT NULL,
    "account_id" TEXT NOT NULL,
    "type" TEXT NOT NULL,
    "data" JSONB NOT NULL,
    "tx_id" BIGINT NOT NULL DEFAULT (pg_current_xact_id())::text::bigint,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "task_events_pkey" PRIMARY KEY ("id")
);

CREATE INDEX "task_events_task_id_id_idx" ON "task_events"("task_id", "id");

CREATE INDEX "task_events_account_id_tx_id_id_idx" ON "task_events"("account_id", "tx_id", "id");

ALTER TABLE "task_events" ADD CONSTRAINT "task_events_task_id_fkey" FOREIGN KEY ("task_id") REFERENCES "tasks"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- Timestamps as the API writes them (ISO 8601, milliseconds, UTC).
CREATE FUNCTION "task_event_time"(at TIMESTAMPTZ) RETURNS TEXT LANGUAGE sql STABLE AS $$
    SELECT to_char(at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')
$$;

-- A new status is one event (`queued`, `processing`, `completed`, `failed`), a new progress report of a processing
-- task another (`progress`). An ended task's data is filled in by the reader: the task body as GET shows it.
CREATE FUNCTION "record_task_event"() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
    status_changed BOOLEAN := TRUE;
    progress_changed BOOLEAN;
BEGIN
    IF TG_OP = 'UPDATE' THEN
        status_changed := NEW."status" IS DISTINCT FROM OLD."status";
        progress_changed := NEW."progress" IS DISTINCT FROM OLD."progress";
    END IF;
    progress_changed := NEW."status" = 'processing' AND NEW."progress" IS NOT NULL
        AND (status_changed OR progress_changed);
    IF status_changed THEN
        INSERT INTO "task_events" ("task_id", "account_id", "type", "data")
        VALUES (NEW."id", NEW."account_id", NEW."status"::text, jsonb_strip_nulls(jsonb_build_object(
            'id', NEW."id",
            'status', NEW."status"::text,
            'created_at', "task_event_time"(NEW."created_at"),
            'started_at', "task_event_time"(NEW."started_at"))));
    END IF;
    IF progress_changed THEN
        INSERT INTO "task_events" ("task_id", "account_id", "type", "data")
        VALUES (NEW."id", NEW."account_id", 'progress',
            jsonb_build_object('id', NEW."id", 'status', 'processing', 'progress', NEW."progress"));
    END IF;
    IF status_changed OR progress_changed THEN
        PERFORM pg_notify('task_events', NEW."account_id" || ' ' || NEW."id");
    END IF;
    RETURN NULL;
END
$$;

CREATE TRIGGER "tasks_record_event_on_insert" AFTER INSERT ON "tasks"
    FOR EACH ROW EXECUTE FUNCTION "record_task_event"();

CREATE TRIGGER "tasks_record_event_on_update" AFTER UPDATE OF "status", "progress" ON "tasks"
    FOR EACH ROW WHEN (OLD."status" IS DISTINCT FROM NEW."status" OR OLD."progress" IS DISTINCT FROM NEW."progress")
    EXECUTE FUNCTION "record_task_event"();
