-- Counts the sent and dead rows a replay would move, up to $5 rows: the
-- dry run of the admin replay and its check against the per-request
-- maximum read at most that many rows, however wide the filter.
SELECT count(*)
FROM (
  SELECT 1
  FROM "qb_outbox"
  WHERE "ob_state" IN ('sent', 'dead')
    AND ($1::uuid[] IS NULL OR "ob_id" = ANY($1))
    AND ($2::text[] IS NULL OR "ob_topic" = ANY($2))
    AND ($3::timestamptz IS NULL OR "ob_createdat" > $3)
    AND ($4::timestamptz IS NULL OR "ob_createdat" < $4)
  LIMIT $5) AS selected
