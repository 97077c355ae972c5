-- Claims up to $1 push rows for the relay. It runs after
-- pg_advisory_xact_lock in the same transaction, so relay claims of every
-- replica run one after another and each sees the claims before it. A row
-- with an aggregate is claimable only when no push row of that aggregate
-- is processing and no earlier push row of it is pending, so at most one
-- row per aggregate is in flight and rows go in created_at order. Rows
-- without an aggregate take part in no ordering. Pull rows are never
-- touched, and neither are rows of a source missing from $3, the sources
-- this relay is configured with: during a rolling change, ingest may
-- store rows of a source that this replica does not know yet, and they
-- wait (holding back their aggregate) for a relay that does. $4 is the
-- nullable clock, written out as in outbox_claim.sql.
WITH candidates AS (
    SELECT i."ib_id" AS id
    FROM "qb_inbox" i
    WHERE i."ib_state" = 'pending'
      AND i."ib_consumption" = 'push'
      AND i."ib_source" = ANY($3::text[])
      AND (i."ib_aggregateid" IS NULL OR (
          NOT EXISTS (
              SELECT 1 FROM "qb_inbox" busy
              WHERE busy."ib_aggregateid" = i."ib_aggregateid"
                AND busy."ib_state" = 'processing'
                AND busy."ib_consumption" = 'push')
          AND NOT EXISTS (
              SELECT 1 FROM "qb_inbox" earlier
              WHERE earlier."ib_aggregateid" = i."ib_aggregateid"
                AND earlier."ib_state" = 'pending'
                AND earlier."ib_consumption" = 'push'
                AND (earlier."ib_createdat", earlier."ib_id") < (i."ib_createdat", i."ib_id"))))
    ORDER BY i."ib_createdat", i."ib_id"
    LIMIT $1
    FOR UPDATE SKIP LOCKED
)
UPDATE "qb_inbox" i
SET "ib_state" = 'processing',
    "ib_claimtoken" = gen_random_uuid(),
    "ib_claimedat" = COALESCE($4::timestamptz, now()),
    "ib_leaseexpiresat" = COALESCE($4::timestamptz, now()) + $2 * interval '1 millisecond'
FROM candidates
WHERE i."ib_id" = candidates.id
RETURNING i."ib_id"::text, i."ib_source", i."ib_idempotencykey", i."ib_aggregateid", i."ib_eventtype",
          i."ib_headers"::text, i."ib_correlationid", i."ib_createdat", i."ib_claimtoken"::text
