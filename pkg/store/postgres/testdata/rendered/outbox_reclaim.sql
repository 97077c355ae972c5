-- Returns processing rows whose lease expired to pending. The next claim
-- takes them under a new token; the old owner's fence then fails. The
-- rows are locked in id order and a row another statement holds is
-- skipped (the next step takes it if its lease is still expired), so the
-- step never waits on, nor deadlocks with, a renewal or an outcome write.
WITH expired AS MATERIALIZED (
    SELECT "ob_id" AS id
    FROM "qb_outbox"
    WHERE "ob_state" = 'processing'
      AND "ob_leaseexpiresat" < COALESCE($1::timestamptz, now())
    ORDER BY "ob_id"
    FOR UPDATE SKIP LOCKED
)
UPDATE "qb_outbox" o
SET "ob_state" = 'pending',
    "ob_leaseexpiresat" = NULL,
    "ob_updatedat" = COALESCE($1::timestamptz, now())
FROM expired
WHERE o."ob_id" = expired.id
  AND o."ob_state" = 'processing'
  AND o."ob_leaseexpiresat" < COALESCE($1::timestamptz, now())
