-- Returns the id of the row that a source stored under an idempotency
-- key. Insert reads it after a retry whose first try may have committed.
SELECT "ib_id"::text
FROM "qb_inbox"
WHERE "ib_source" = $1 AND "ib_idempotencykey" = $2
