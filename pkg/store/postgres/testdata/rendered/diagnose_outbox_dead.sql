-- The dead outbox rows per topic and destination (the destination
-- column, '' for a row that died before its routing and on an outbox
-- without the lane columns) and the age in seconds of the oldest of
-- each, for `queuebox doctor`. Discarded rows (V13) are left out: an
-- operator already decided about them.
SELECT "ob_topic", "ob_destination", count(*),
       EXTRACT(EPOCH FROM now() - min("ob_createdat"))::float8
FROM "qb_outbox"
WHERE "ob_state" = 'dead' AND "discarded_at" IS NULL
GROUP BY "ob_topic", "ob_destination"
