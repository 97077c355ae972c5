-- Lists the partitions of one table in order, each with its range and
-- its rows: range_from is NULL for the first partition (everything
-- before the first boundary) and range_to NULL for the last (everything
-- after the last one). The maintenance continues after the last
-- boundary, retention reads the past ranges, and the doctor warns when
-- the last partition, which the maintenance keeps empty, holds rows.
--
-- T-SQL points: with RANGE RIGHT, partition n runs from boundary n - 1
-- to boundary n; sys.partitions.rows is the count the engine keeps, not
-- a scan.
SELECT p.partition_number,
       CAST(lower_bound.value AS DATETIME2(7)) AS range_from,
       CAST(upper_bound.value AS DATETIME2(7)) AS range_to,
       p.rows
FROM sys.partitions p
JOIN sys.indexes i ON i.object_id = p.object_id AND i.index_id = p.index_id
JOIN sys.partition_schemes s ON s.data_space_id = i.data_space_id
LEFT JOIN sys.partition_range_values lower_bound
    ON lower_bound.function_id = s.function_id AND lower_bound.boundary_id = p.partition_number - 1
LEFT JOIN sys.partition_range_values upper_bound
    ON upper_bound.function_id = s.function_id AND upper_bound.boundary_id = p.partition_number
WHERE p.object_id = OBJECT_ID(N'{{.Table}}') AND p.index_id IN (0, 1)
ORDER BY p.partition_number
