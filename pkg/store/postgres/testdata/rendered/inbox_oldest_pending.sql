-- The age in seconds of the oldest pending row, push or pull, for the age
-- gauge: a pull backlog must show in it as well as a relay backlog. The
-- database clock measures it; NULL when nothing is pending.
SELECT EXTRACT(EPOCH FROM now() - min("ib_createdat"))::float8
FROM "qb_inbox"
WHERE "ib_state" = 'pending'
