-- The age in milliseconds of the oldest pending row per outbox topic or
-- per inbox source, by the database clock: the 50 oldest names, then one
-- row (name NULL) for the rest with their oldest age. Topics are the
-- senders' choice, so the answer is bounded here, in SQL.
-- Columns: name, age, rows pending, names (1 for a named row; for the
-- rest, how many).
WITH g AS (
  SELECT {{if .Outbox}}{{.T.Topic}}{{else}}{{.T.Source}}{{end}} AS name,
         (extract(epoch FROM now() - min({{.T.CreatedAt}})) * 1000)::bigint AS age, count(*) AS n
  FROM {{.T.Table}}
  WHERE {{.T.State}} = 'pending'
  GROUP BY 1
), r AS (
  SELECT name, age, n, row_number() OVER (ORDER BY age DESC, name) AS place FROM g
)
SELECT name, age, n, 1::bigint FROM r WHERE place <= 50
UNION ALL
SELECT NULL, max(age), sum(n)::bigint, count(*) FROM r WHERE place > 50 HAVING count(*) > 0
