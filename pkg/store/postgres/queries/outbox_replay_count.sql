-- Counts the sent and dead rows a replay would move, up to $5 rows: the
-- dry run of the admin replay and its check against the per-request
-- maximum read at most that many rows, however wide the filter.
SELECT count(*)
FROM (
  SELECT 1
  FROM {{.O.Table}}
  WHERE {{.O.State}} IN ('sent', 'dead')
    AND ($1::uuid[] IS NULL OR {{.O.ID}} = ANY($1))
    AND ($2::text[] IS NULL OR {{.O.Topic}} = ANY($2))
    AND ($3::timestamptz IS NULL OR {{.O.CreatedAt}} > $3)
    AND ($4::timestamptz IS NULL OR {{.O.CreatedAt}} < $4)
  LIMIT $5) AS selected
