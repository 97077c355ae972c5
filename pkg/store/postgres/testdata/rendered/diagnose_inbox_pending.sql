-- The pending inbox rows per source and the age in seconds of the oldest
-- of each, by the database clock, for `queuebox doctor`.
SELECT "ib_source", count(*), EXTRACT(EPOCH FROM now() - min("ib_createdat"))::float8
FROM "qb_inbox"
WHERE "ib_state" = 'pending'
GROUP BY "ib_source"
