-- What logical capture needs: wal_level, and the replication slot named
-- $1 (outbox.capture.slot) with whether a session reads it and how much
-- write-ahead log it holds back.
SELECT current_setting('wal_level'),
       s.slot_name IS NOT NULL,
       COALESCE(s.active, false),
       COALESCE(pg_wal_lsn_diff(pg_current_wal_lsn(), s.restart_lsn), 0)::bigint
FROM (SELECT 1) AS one
LEFT JOIN pg_replication_slots s ON s.slot_name = $1
