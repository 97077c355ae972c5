-- The dead inbox rows per source and the age in seconds of the oldest of
-- each, for `queuebox doctor`. Discarded rows (V13) are left out: an operator already
-- decided about them.
SELECT "ib_source", count(*), EXTRACT(EPOCH FROM now() - min("ib_createdat"))::float8
FROM "qb_inbox"
WHERE "ib_state" = 'dead' AND "discarded_at" IS NULL
GROUP BY "ib_source"
