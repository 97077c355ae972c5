-- The bytes of WAL between the current position and the confirmed
-- position of slot $1 in this database; 0 when nothing is behind, no row
-- when the slot does not exist here.
SELECT COALESCE(pg_wal_lsn_diff(pg_current_wal_lsn(), confirmed_flush_lsn), 0)::bigint
FROM pg_replication_slots WHERE slot_name = $1 AND database = current_database();
