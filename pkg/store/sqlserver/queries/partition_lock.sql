-- Tries the session lock of one table's partition maintenance without
-- waiting, as pg_try_advisory_lock does on PostgreSQL: among replicas,
-- one splits the ranges ahead and the others skip the run. The result is
-- sp_getapplock's: 0 granted, negative when another session holds it.
-- The lock lasts until partition_unlock.sql or the end of the session.
--
-- T-SQL points: an application lock is per database; the resource names
-- the schema and the table.
DECLARE @result INT;
DECLARE @resource NVARCHAR(255) = N'queuebox.partitions.' + SCHEMA_NAME() + N'.{{.Name}}';
EXEC @result = sp_getapplock @Resource = @resource, @LockMode = 'Exclusive', @LockOwner = 'Session', @LockTimeout = 0;
SELECT @result AS result
