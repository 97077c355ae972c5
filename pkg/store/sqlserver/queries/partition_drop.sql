-- Retention by partition: empties the partition that holds @p1 (its
-- lower bound, or NULL for the first partition) in one transaction and
-- removes its boundary, when no pending or processing row is in it. The
-- check reads the partition under UPDLOCK and HOLDLOCK, so that a replay
-- cannot make a row of it pending again before the commit; TRUNCATE
-- then takes the table's schema lock (readers and writers wait for this
-- short transaction, 2 s at most for the lock). MERGE RANGE folds the
-- emptied range into the one before it, which moves no row. dropped is 0
-- when a live row kept the partition; a lock not granted in time is an
-- error 1222, and the next cleanup tries again.
--
-- This is TRUNCATE ... WITH (PARTITIONS), SQL Server 2016 or later, the
-- single statement that replaces switching the partition out to an empty
-- twin table (ALTER TABLE ... SWITCH PARTITION n TO ...) and truncating
-- that. Both need every index aligned, which partition_align.sql makes.
--
-- T-SQL points: TRUNCATE takes a partition number only as a literal, so
-- it runs through sp_executesql from an INT; $PARTITION finds the number.
SET XACT_ABORT ON;
SET LOCK_TIMEOUT 2000;
BEGIN TRANSACTION;
DECLARE @n INT = CASE WHEN @p1 IS NULL THEN 1 ELSE $PARTITION.{{.Function}}(@p1) END;
IF EXISTS (SELECT 1 FROM {{.Table}} WITH (UPDLOCK, HOLDLOCK)
           WHERE $PARTITION.{{.Function}}({{.CreatedAt}}) = @n AND {{.State}} IN ('pending', 'processing'))
BEGIN
    ROLLBACK;
    SELECT CAST(0 AS BIT) AS dropped;
    RETURN;
END;
DECLARE @truncate NVARCHAR(200) = N'TRUNCATE TABLE {{.Table}} WITH (PARTITIONS (' + CAST(@n AS NVARCHAR(10)) + N'))';
EXEC sp_executesql @truncate;
IF @p1 IS NOT NULL
    ALTER PARTITION FUNCTION {{.Function}}() MERGE RANGE (@p1);
COMMIT;
SELECT CAST(1 AS BIT) AS dropped
