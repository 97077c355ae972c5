-- Moves one table onto its partition scheme (partition_create.sql), in
-- one transaction: the primary key becomes the clustered index
-- (id, created_at) on the scheme, and every other index is built again on
-- the scheme, aligned, as TRUNCATE ... WITH (PARTITIONS) and SWITCH
-- require. A unique index other than the primary key (the inbox's
-- (source, idempotency_key)) comes back as a plain index, uq_ renamed
-- idx_, as on PostgreSQL: an aligned unique index must hold created_at,
-- and one left unaligned would forbid emptying a partition.
-- inbox_insert_partitioned.sql keeps the key unique instead.
--
-- On a new, empty table this changes the catalog only. On a populated
-- one it rewrites the table and every index under the table's schema
-- lock (Sch-M): readers and writers wait for the whole rebuild. That is
-- the conversion of a populated SQL Server database; docs/partitions.md
-- says how to plan it.
--
-- T-SQL points: the index list is read from sys.indexes before anything
-- is dropped (STRING_AGG: SQL Server 2017 or later); names pass through
-- QUOTENAME; filters and included columns are kept.
SET XACT_ABORT ON;
BEGIN TRANSACTION;

DECLARE @indexes TABLE (
    name SYSNAME NOT NULL, is_constraint BIT NOT NULL,
    keys NVARCHAR(MAX) NOT NULL, included NVARCHAR(MAX) NULL, filter NVARCHAR(MAX) NULL);
INSERT INTO @indexes (name, is_constraint, keys, included, filter)
SELECT i.name, i.is_unique_constraint,
    (SELECT STRING_AGG(QUOTENAME(c.name) + CASE WHEN ic.is_descending_key = 1 THEN N' DESC' ELSE N'' END, N', ')
            WITHIN GROUP (ORDER BY ic.key_ordinal)
        FROM sys.index_columns ic JOIN sys.columns c ON c.object_id = ic.object_id AND c.column_id = ic.column_id
        WHERE ic.object_id = i.object_id AND ic.index_id = i.index_id AND ic.is_included_column = 0),
    (SELECT STRING_AGG(QUOTENAME(c.name), N', ')
        FROM sys.index_columns ic JOIN sys.columns c ON c.object_id = ic.object_id AND c.column_id = ic.column_id
        WHERE ic.object_id = i.object_id AND ic.index_id = i.index_id AND ic.is_included_column = 1),
    i.filter_definition
FROM sys.indexes i
WHERE i.object_id = OBJECT_ID(N'{{.Table}}') AND i.type = 2 AND i.is_primary_key = 0;

DECLARE @pk SYSNAME = (SELECT name FROM sys.key_constraints
    WHERE parent_object_id = OBJECT_ID(N'{{.Table}}') AND type = 'PK');
DECLARE @sql NVARCHAR(MAX);

-- Every nonclustered index goes first, so that dropping the clustered
-- primary key does not rebuild them for nothing.
SELECT @sql = STRING_AGG(CAST(CASE WHEN is_constraint = 1
        THEN N'ALTER TABLE {{.Table}} DROP CONSTRAINT ' + QUOTENAME(name)
        ELSE N'DROP INDEX ' + QUOTENAME(name) + N' ON {{.Table}}' END AS NVARCHAR(MAX)), N'; ')
FROM @indexes;
IF @sql IS NOT NULL EXEC sp_executesql @sql;

SET @sql = N'ALTER TABLE {{.Table}} DROP CONSTRAINT ' + QUOTENAME(@pk)
    + N'; ALTER TABLE {{.Table}} ADD CONSTRAINT ' + QUOTENAME(@pk)
    + N' PRIMARY KEY CLUSTERED ({{.ID}}, {{.CreatedAt}}) ON {{.Scheme}} ({{.CreatedAt}})';
EXEC sp_executesql @sql;

SELECT @sql = STRING_AGG(CAST(N'CREATE INDEX '
        + QUOTENAME(CASE WHEN name LIKE N'uq[_]%' THEN N'idx_' + SUBSTRING(name, 4, 128) ELSE name END)
        + N' ON {{.Table}} (' + keys + N')'
        + COALESCE(N' INCLUDE (' + included + N')', N'')
        + COALESCE(N' WHERE ' + filter, N'')
        + N' ON {{.Scheme}} ({{.CreatedAt}})' AS NVARCHAR(MAX)), N'; ')
FROM @indexes;
IF @sql IS NOT NULL EXEC sp_executesql @sql;

COMMIT;
