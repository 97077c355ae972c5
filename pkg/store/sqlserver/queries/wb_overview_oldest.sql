-- The age in milliseconds of the oldest pending row per outbox topic or
-- per inbox source, by the database clock: the 50 oldest names, then one
-- row (name NULL) for the rest with their oldest age; the twin of the
-- PostgreSQL wb_overview_oldest.sql.
-- Columns: name, age, rows pending, names (1 for a named row; for the
-- rest, how many).
--
-- T-SQL points: DATEDIFF_BIG, so an age of weeks overflows no INT;
-- SYSUTCDATETIME(), the zone of every DATETIME2 column.
WITH g AS (
  SELECT {{if .Outbox}}{{.T.Topic}}{{else}}{{.T.Source}}{{end}} AS name,
         DATEDIFF_BIG(MILLISECOND, MIN({{.T.CreatedAt}}), SYSUTCDATETIME()) AS age, COUNT_BIG(*) AS n
  FROM {{.T.Table}}
  WHERE {{.T.State}} = 'pending'
  GROUP BY {{if .Outbox}}{{.T.Topic}}{{else}}{{.T.Source}}{{end}}
), r AS (
  SELECT name, age, n, ROW_NUMBER() OVER (ORDER BY age DESC, name) AS place FROM g
)
SELECT name, age, n, CAST(1 AS BIGINT) FROM r WHERE place <= 50
UNION ALL
SELECT NULL, MAX(age), SUM(n), COUNT_BIG(*) FROM r WHERE place > 50 HAVING COUNT_BIG(*) > 0
