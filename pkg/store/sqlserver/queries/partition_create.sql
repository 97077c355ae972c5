-- Creates the partition function and scheme of one table when they do
-- not exist yet: ranges of created_at, RANGE RIGHT, so that a boundary
-- starts its partition ([from, to), as on PostgreSQL), with one boundary,
-- @p1, the start of the current interval; partition_split.sql adds the
-- ranges ahead. Every partition lives on the PRIMARY filegroup.
--
-- A partition function covers every value: the first partition takes
-- what comes before the first boundary, the last one what comes after
-- the last. No insert can fail for a missing partition; the last
-- partition plays the part of PostgreSQL's default partition, which the
-- maintenance keeps empty by splitting ahead of now.
--
-- Not wired: database.partitioning refuses sqlserver until these
-- statements have run against a server (docs/partitions.md).
--
-- T-SQL points: the function's type is the column's, DATETIME2 (7); a
-- boundary may be a variable; the catalog names are compared unquoted.
IF NOT EXISTS (SELECT 1 FROM sys.partition_functions WHERE name = N'{{.FunctionName}}')
    CREATE PARTITION FUNCTION {{.Function}} (DATETIME2(7)) AS RANGE RIGHT FOR VALUES (@p1);
IF NOT EXISTS (SELECT 1 FROM sys.partition_schemes WHERE name = N'{{.SchemeName}}')
    CREATE PARTITION SCHEME {{.Scheme}} AS PARTITION {{.Function}} ALL TO ([PRIMARY]);
