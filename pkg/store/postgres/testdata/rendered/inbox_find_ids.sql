-- Returns which of the ids $1 the inbox holds. InsertBatch reads it after
-- a retry whose first try may have committed: a row under a message's own
-- id is that message, stored, not a duplicate.
SELECT "ib_id"::text
FROM "qb_inbox"
WHERE "ib_id" = ANY ($1::uuid[])
