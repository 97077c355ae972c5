-- Serializes the backfills of one destination (wb_backfill.sql and the
-- backfill steps of replay jobs) across processes: a transaction lock
-- keyed on @lock, queuebox_backfill_ with the table and the destination.
-- The statement after it in the same transaction takes its snapshot
-- once the lock is granted, so it sees the deliveries that the holder
-- before it added; the commit releases it.
SELECT pg_advisory_xact_lock(hashtext(@lock))
