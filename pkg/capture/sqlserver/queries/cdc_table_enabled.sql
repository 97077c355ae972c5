-- Whether change data capture tracks the outbox table (@p1 schema, @p2
-- table); 0 rows when the table does not exist.
SELECT CAST(t.is_tracked_by_cdc AS INT)
FROM sys.tables t JOIN sys.schemas s ON s.schema_id = t.schema_id
WHERE s.name = @p1 AND t.name = @p2;
