-- The dead outbox rows per topic and the age in seconds of the oldest of
-- each, for `queuebox doctor`.
SELECT "ob_topic", count(*), EXTRACT(EPOCH FROM now() - min("ob_createdat"))::float8
FROM "qb_outbox"
WHERE "ob_state" = 'dead'
GROUP BY "ob_topic"
