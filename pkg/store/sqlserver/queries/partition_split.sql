-- Creates the partition that starts at @p1 by splitting the last range
-- there, under the maintenance lock (partition_lock.sql). Splitting an
-- empty range changes the catalog only; splitting one that holds rows
-- would move them under the table's schema lock, so a split is skipped
-- when a row sits at or after @p1 (created returns 0), as PostgreSQL
-- leaves a range to its default partition, and the doctor warns. A
-- boundary that exists already is skipped as well. The schema lock of
-- the split waits 2 s at most; the next run tries again.
--
-- T-SQL points: NEXT USED names the filegroup of the new partition;
-- SPLIT RANGE takes a variable; RETURN ends the batch.
SET XACT_ABORT ON;
SET LOCK_TIMEOUT 2000;
IF EXISTS (SELECT 1 FROM sys.partition_range_values v
           JOIN sys.partition_functions f ON f.function_id = v.function_id
           WHERE f.name = N'{{.FunctionName}}' AND CAST(v.value AS DATETIME2(7)) = @p1)
   OR EXISTS (SELECT 1 FROM {{.Table}} WHERE {{.CreatedAt}} >= @p1)
BEGIN
    SELECT CAST(0 AS BIT) AS created;
    RETURN;
END;
ALTER PARTITION SCHEME {{.Scheme}} NEXT USED [PRIMARY];
ALTER PARTITION FUNCTION {{.Function}}() SPLIT RANGE (@p1);
SELECT CAST(1 AS BIT) AS created
