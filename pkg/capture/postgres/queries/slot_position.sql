-- The confirmed position of the replication slot and the server's current
-- WAL position, against which capture checks offsets.dat before it streams
-- from it; no row when the slot does not exist. It runs on the replication
-- connection: values are quoted literals.
SELECT confirmed_flush_lsn, pg_current_wal_lsn() FROM pg_replication_slots WHERE slot_name = {{literal .Slot}};
