-- The dead rows not discarded per outbox topic or per inbox source: the
-- 50 names with the most, then one row (name NULL) with the rest summed.
-- Topics are the senders' choice, so the answer is bounded here, in SQL.
-- Columns: name, rows, names (1 for a named row; for the rest, how many).
WITH g AS (
  SELECT {{if .Outbox}}{{.T.Topic}}{{else}}{{.T.Source}}{{end}} AS name, count(*) AS n
  FROM {{.T.Table}}
  WHERE {{.T.State}} = 'dead' AND {{.T.DiscardedAt}} IS NULL
  GROUP BY 1
), r AS (
  SELECT name, n, row_number() OVER (ORDER BY n DESC, name) AS place FROM g
)
SELECT name, n, 1::bigint FROM r WHERE place <= 50
UNION ALL
SELECT NULL, sum(n)::bigint, count(*) FROM r WHERE place > 50 HAVING count(*) > 0
