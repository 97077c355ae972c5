-- The distinct topics of the sent and dead rows a replay could move, so
-- the routes can resolve a destination to its topics with the same
-- first-match rule as the poller.
SELECT DISTINCT {{.O.Topic}}
FROM {{.O.Table}}
WHERE {{.O.State}} IN ('sent', 'dead')
  AND ($1::uuid[] IS NULL OR {{.O.ID}} = ANY($1))
  AND ($2::text[] IS NULL OR {{.O.Topic}} = ANY($2))
  AND ($3::timestamptz IS NULL OR {{.O.CreatedAt}} > $3)
  AND ($4::timestamptz IS NULL OR {{.O.CreatedAt}} < $4)
