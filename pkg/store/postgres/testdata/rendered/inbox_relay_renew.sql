-- Extends the relay leases still held, fenced. The rows are locked first,
-- in id order, as the forward and the dead mark lock them: the renewal
-- and a write of one relay run on two connections at once, and two
-- statements that lock shared rows in different orders deadlock.
WITH held AS MATERIALIZED (
    SELECT i."ib_id" AS id
    FROM "qb_inbox" i
    JOIN unnest($1::uuid[], $2::uuid[]) AS d(id, token) ON i."ib_id" = d.id
    WHERE i."ib_state" = 'processing'
      AND i."ib_claimtoken" = d.token
      AND i."ib_leaseexpiresat" > now()
    ORDER BY i."ib_id"
    FOR UPDATE OF i
)
UPDATE "qb_inbox" i
SET "ib_leaseexpiresat" = now() + $3 * interval '1 millisecond'
FROM held
WHERE i."ib_id" = held.id
  AND i."ib_state" = 'processing'
  AND i."ib_leaseexpiresat" > now()
RETURNING i."ib_id"::text
