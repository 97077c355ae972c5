-- Whether the publication holds the outbox table. It runs on the
-- replication connection: values are quoted literals.
SELECT 1 FROM pg_publication_tables
WHERE pubname = {{literal .Publication}} AND schemaname = {{literal .Schema}} AND tablename = {{literal .Table}};
