-- The dead rows not discarded per outbox topic or per inbox source: the
-- 50 names with the most, then one row (name NULL) with the rest summed;
-- the twin of the PostgreSQL wb_overview_dead.sql.
-- Columns: name, rows, names (1 for a named row; for the rest, how many).
WITH g AS (
  SELECT {{if .Outbox}}{{.T.Topic}}{{else}}{{.T.Source}}{{end}} AS name, COUNT_BIG(*) AS n
  FROM {{.T.Table}}
  WHERE {{.T.State}} = 'dead' AND {{.T.DiscardedAt}} IS NULL
  GROUP BY {{if .Outbox}}{{.T.Topic}}{{else}}{{.T.Source}}{{end}}
), r AS (
  SELECT name, n, ROW_NUMBER() OVER (ORDER BY n DESC, name) AS place FROM g
)
SELECT name, n, CAST(1 AS BIGINT) FROM r WHERE place <= 50
UNION ALL
SELECT NULL, SUM(n), COUNT_BIG(*) FROM r WHERE place > 50 HAVING COUNT_BIG(*) > 0
