-- Reads whether one table is partitioned (its rows, the clustered index
-- or the heap, live on a partition scheme) and whether it exists: the
-- mode check of the start, which refuses a table that disagrees with
-- database.partitioning.enabled, naming both, as on PostgreSQL. The
-- database records the mode itself, so the check cannot drift from
-- what the table is.
--
-- T-SQL points: index_id 0 is the heap, 1 the clustered index; a
-- partitioned one has a partition scheme as its data space.
SELECT CAST(CASE WHEN EXISTS (
           SELECT 1 FROM sys.indexes i
           JOIN sys.partition_schemes s ON s.data_space_id = i.data_space_id
           WHERE i.object_id = OBJECT_ID(N'{{.Table}}') AND i.index_id IN (0, 1))
       THEN 1 ELSE 0 END AS BIT) AS partitioned,
       CAST(CASE WHEN OBJECT_ID(N'{{.Table}}') IS NULL THEN 0 ELSE 1 END AS BIT) AS found
