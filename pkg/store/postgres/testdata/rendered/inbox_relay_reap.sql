-- Returns push rows whose relay lease expired to pending. Pull rows are
-- left to the pull claim, which takes over expired leases itself. Rows
-- are locked in id order and a row another statement holds is skipped,
-- as in the outbox reclaim step.
WITH expired AS MATERIALIZED (
    SELECT "ib_id" AS id
    FROM "qb_inbox"
    WHERE "ib_state" = 'processing'
      AND "ib_consumption" = 'push'
      AND "ib_leaseexpiresat" < COALESCE($1::timestamptz, now())
    ORDER BY "ib_id"
    FOR UPDATE SKIP LOCKED
)
UPDATE "qb_inbox" i
SET "ib_state" = 'pending',
    "ib_leaseexpiresat" = NULL
FROM expired
WHERE i."ib_id" = expired.id
  AND i."ib_state" = 'processing'
  AND i."ib_leaseexpiresat" < COALESCE($1::timestamptz, now())
