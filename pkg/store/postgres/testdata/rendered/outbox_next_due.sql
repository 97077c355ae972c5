-- The wait in milliseconds until the earliest pending row scheduled later
-- than $2 microseconds before now falls due, or NULL when no row waits.
-- $2 is how long ago the caller's last claim started: a row that fell due
-- since then (negative wait) was not there for that claim to see, one
-- due before it was. The delay, not the timestamp, is returned so that the
-- poller never compares the database's clock with its own. It is rounded
-- up: a wake a little late finds the row due, one early finds nothing.
-- min() over the partial (state, scheduled_at) index of pending rows is
-- one index probe. $1 is the nullable clock of the lease statements.
SELECT ceil(EXTRACT(EPOCH FROM min("ob_scheduledat") - COALESCE($1::timestamptz, now())) * 1000)::bigint
FROM "qb_outbox"
WHERE "ob_state" = 'pending'
  AND "ob_scheduledat" > COALESCE($1::timestamptz, now()) - $2::bigint * interval '1 microsecond'
