-- Marks claimed push rows dead (a topic that rendered empty), fenced
-- (partials.sql). The fence locks the rows in id order first, as the
-- renewal locks them.
WITH d AS MATERIALIZED (
    SELECT * FROM unnest($1::uuid[], $2::uuid[], $3::text[]) AS d(id, token, error)
), owned AS MATERIALIZED (
    SELECT i."ib_id" AS id
    FROM "qb_inbox" i
    JOIN d ON i."ib_id" = d.id
    WHERE COALESCE(i."ib_state", '') = 'processing' AND i."ib_claimtoken" = d.token AND i."ib_leaseexpiresat" > COALESCE($4::timestamptz, now())
    ORDER BY i."ib_id"
    FOR UPDATE OF i
)
UPDATE "qb_inbox" i
SET "ib_state" = 'dead',
    "ib_lasterror" = d.error,
    "ib_claimtoken" = NULL,
    "ib_leaseexpiresat" = NULL
FROM d, owned
WHERE i."ib_id" = owned.id
  AND d.id = owned.id
  AND COALESCE(i."ib_state", '') = 'processing' AND i."ib_claimtoken" = d.token AND i."ib_leaseexpiresat" > COALESCE($4::timestamptz, now())
RETURNING i."ib_id"::text
