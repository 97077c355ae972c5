-- The distinct topics of the sent and dead rows a replay could move, so
-- the routes can resolve a destination to its topics with the same
-- first-match rule as the poller.
SELECT DISTINCT "ob_topic"
FROM "qb_outbox"
WHERE "ob_state" IN ('sent', 'dead')
  AND ($1::uuid[] IS NULL OR "ob_id" = ANY($1))
  AND ($2::text[] IS NULL OR "ob_topic" = ANY($2))
  AND ($3::timestamptz IS NULL OR "ob_createdat" > $3)
  AND ($4::timestamptz IS NULL OR "ob_createdat" < $4)
