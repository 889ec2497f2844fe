-- Where an account's event stream may read up to: below the oldest transaction of this database still in flight in
-- the snapshot (its events may yet commit under a lower tx_id), else below the snapshot's xmax. A transaction of
-- another database on the same server writes no task events, so it holds nothing back; one whose database cannot be
-- seen (another role's session, a prepared transaction, or one that ended a moment ago) counts as this database's.
CREATE FUNCTION "task_events_horizon"(snapshot pg_snapshot) RETURNS BIGINT LANGUAGE sql STABLE AS $$
    SELECT coalesce(min(in_flight::text::bigint), pg_snapshot_xmax(snapshot)::text::bigint)
    FROM pg_snapshot_xip(snapshot) AS in_flight
    WHERE NOT EXISTS (
        SELECT FROM pg_stat_activity AS session
        WHERE session.backend_xid IS NOT NULL
            AND session.datname IS DISTINCT FROM current_database()
            AND session.backend_xid::text::bigint = in_flight::text::bigint % 4294967296)
$$;
