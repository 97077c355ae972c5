-- Counts the rows a workbench filter selects, up to @limit rows (NULL: no
-- bound); the twin of the PostgreSQL wb_count.sql.
--
-- T-SQL points: TOP with a BIGINT bound inside, COUNT_BIG outside.
SELECT COUNT_BIG(*)
FROM (
    SELECT TOP (COALESCE(@limit, 9223372036854775807)) 1 AS one
    FROM {{.T.Table}}
    WHERE 1 = 1{{template "wb_filter" .}}) AS selected
