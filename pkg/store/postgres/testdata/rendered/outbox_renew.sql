-- Extends the leases still held, fenced (partials.sql) like every
-- terminal write. The fence locks the rows first, in id order, as the
-- outcome write locks them, so the two never deadlock.
WITH d AS MATERIALIZED (
    SELECT * FROM unnest($1::uuid[], $2::uuid[]) AS d(id, token)
), owned AS MATERIALIZED (
    SELECT o."ob_id" AS id
    FROM "qb_outbox" o
    JOIN d ON o."ob_id" = d.id
    WHERE COALESCE(o."ob_state", '') = 'processing' AND o."ob_claimtoken" = d.token AND o."ob_leaseexpiresat" > COALESCE($4::timestamptz, now())
    ORDER BY o."ob_id"
    FOR UPDATE OF o
)
UPDATE "qb_outbox" o
SET "ob_leaseexpiresat" = COALESCE($4::timestamptz, clock_timestamp()) + $3 * interval '1 millisecond'
FROM d, owned
WHERE o."ob_id" = owned.id
  AND d.id = owned.id
  AND COALESCE(o."ob_state", '') = 'processing' AND o."ob_claimtoken" = d.token AND o."ob_leaseexpiresat" > COALESCE($4::timestamptz, now())
RETURNING o."ob_id"::text
