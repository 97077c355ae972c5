-- Extends the relay leases still held, fenced (partials.sql). The fence
-- locks the rows first, in id order, as the forward and the dead mark
-- lock them: the renewal and a write of one relay run on two connections
-- at once, and two statements that lock shared rows in different orders
-- deadlock.
WITH d AS MATERIALIZED (
    SELECT * FROM unnest($1::uuid[], $2::uuid[]) AS d(id, token)
), owned AS MATERIALIZED (
    SELECT i."ib_id" AS id
    FROM "qb_inbox" i
    JOIN d ON i."ib_id" = d.id
    WHERE COALESCE(i."ib_state", '') = 'processing' AND i."ib_claimtoken" = d.token AND i."ib_leaseexpiresat" > COALESCE($4::timestamptz, now())
    ORDER BY i."ib_id"
    FOR UPDATE OF i
)
UPDATE "qb_inbox" i
SET "ib_leaseexpiresat" = COALESCE($4::timestamptz, clock_timestamp()) + $3 * interval '1 millisecond'
FROM d, owned
WHERE i."ib_id" = owned.id
  AND d.id = owned.id
  AND COALESCE(i."ib_state", '') = 'processing' AND i."ib_claimtoken" = d.token AND i."ib_leaseexpiresat" > COALESCE($4::timestamptz, now())
RETURNING i."ib_id"::text
