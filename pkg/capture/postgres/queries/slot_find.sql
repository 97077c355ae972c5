-- The database and the plugin of the replication slot; no row when it
-- does not exist. It runs on the replication connection: values are
-- quoted literals.
SELECT database, plugin FROM pg_replication_slots WHERE slot_name = {{literal .Slot}};
