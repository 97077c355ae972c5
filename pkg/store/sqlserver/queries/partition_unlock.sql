-- Releases the maintenance lock that partition_lock.sql took.
DECLARE @resource NVARCHAR(255) = N'queuebox.partitions.' + SCHEMA_NAME() + N'.{{.Name}}';
EXEC sp_releaseapplock @Resource = @resource, @LockOwner = 'Session'
