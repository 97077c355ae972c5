-- Extends the leases still held, fenced like every terminal write. The
-- rows are locked first, in id order, as the outcome write locks them, so
-- the two never deadlock.
WITH held AS MATERIALIZED (
    SELECT o."ob_id" AS id
    FROM "qb_outbox" o
    JOIN unnest($1::uuid[], $2::uuid[]) AS d(id, token) ON o."ob_id" = d.id
    WHERE o."ob_state" = 'processing'
      AND o."ob_claimtoken" = d.token
      AND o."ob_leaseexpiresat" > now()
    ORDER BY o."ob_id"
    FOR UPDATE OF o
)
UPDATE "qb_outbox" o
SET "ob_leaseexpiresat" = now() + $3 * interval '1 millisecond'
FROM held
WHERE o."ob_id" = held.id
  AND o."ob_state" = 'processing'
  AND o."ob_leaseexpiresat" > now()
RETURNING o."ob_id"::text
