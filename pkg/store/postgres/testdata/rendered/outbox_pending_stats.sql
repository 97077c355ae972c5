-- The pending rows per topic and destination (the destination column, ''
-- for a row not routed yet and on an outbox without the lane columns) and
-- the age in seconds of the oldest pending row of each, for the pending,
-- age and queue depth gauges. The age comes
-- from the database clock, like every other time QueueBox compares with
-- created_at, so a skewed application host does not move the gauge.
SELECT "ob_topic", "ob_destination", count(*),
       EXTRACT(EPOCH FROM now() - min("ob_createdat"))::float8
FROM "qb_outbox"
WHERE "ob_state" = 'pending'
GROUP BY "ob_topic", "ob_destination"
