-- Claims up to $1 push rows for the relay. It runs after
-- pg_advisory_xact_lock in the same transaction (inbox_relay_lock.sql), so
-- relay claims of every replica run one after another and each sees the
-- claims before it.
--
-- A row with an aggregate is claimable only as the head of its aggregate:
-- the first pending push row in (created_at, id) order, while no push row
-- of that aggregate (of any source) is processing. So at most one row per
-- aggregate is in flight and each aggregate goes in created_at order.
-- The keyed part walks the aggregates that have push rows in play through
-- idx_inbox_push_heads (aggregate_id, state, created_at, id), one probe
-- per aggregate, starting after the cursor $5 and wrapping around: the
-- first entry of an aggregate is its head when it is pending (pending
-- sorts before processing), and no earlier row needs a scan. The cost of
-- a claim follows the batch and the aggregates it passes, not the depth
-- of their backlogs nor the finished rows the table keeps; the ORDER BY
-- lists every index column so that no plan with a sort is cheaper, even
-- on statistics that predate the backlog. Rows without an aggregate take
-- part in no ordering and come from idx_inbox_push_unkeyed in created_at
-- order, locked as they are read.
--
-- Pull rows are never touched, and neither are rows of a source missing
-- from $3, the sources this relay is configured with: during a rolling
-- change, ingest may store rows of a source that this replica does not
-- know yet, and they wait (holding back their aggregate) for a relay that
-- does. The lease starts when the row is updated (clock_timestamp()),
-- not when the transaction began: the wait for the relay lock and the
-- walk are not taken out of it. $4 is the nullable test clock, written
-- out as in outbox_claim.sql. $6 is the lower bound (created_at) of the
-- scan of rows without an aggregate, NULL for none, kept by package
-- scanfloor as the outbox claim's is.
--
-- On a partitioned inbox (database.partitioning) the statement first
-- reads the lowest and the highest created_at of a pending or processing
-- row (active_floor, from idx_inbox_active_created, which only a
-- partitioned inbox has) and bounds the walk's probes and the busy
-- probe by them, so PostgreSQL leaves the partitions outside unvisited,
-- as outbox_claim.sql does; each candidate carries its created_at (ca),
-- so its lock and its update probe one partition.
WITH RECURSIVE after_cursor AS (
    (SELECT "ib_aggregateid" AS agg, "ib_state" AS st, "ib_id" AS id, "ib_source" AS src
     FROM "qb_inbox"
     WHERE "ib_consumption" = 'push' AND "ib_state" IN ('pending', 'processing') AND "ib_aggregateid" > $5
     ORDER BY "ib_aggregateid", "ib_state", "ib_createdat", "ib_id"
     LIMIT 1)
    UNION ALL
    SELECT nxt.agg, nxt.st, nxt.id, nxt.src
    FROM after_cursor a
    CROSS JOIN LATERAL (
        SELECT "ib_aggregateid" AS agg, "ib_state" AS st, "ib_id" AS id, "ib_source" AS src
        FROM "qb_inbox"
        WHERE "ib_consumption" = 'push' AND "ib_state" IN ('pending', 'processing') AND "ib_aggregateid" > a.agg
        ORDER BY "ib_aggregateid", "ib_state", "ib_createdat", "ib_id"
        LIMIT 1) nxt
), before_cursor AS (
    (SELECT "ib_aggregateid" AS agg, "ib_state" AS st, "ib_id" AS id, "ib_source" AS src
     FROM "qb_inbox"
     WHERE "ib_consumption" = 'push' AND "ib_state" IN ('pending', 'processing')
       AND "ib_aggregateid" IS NOT NULL AND "ib_aggregateid" <= $5
     ORDER BY "ib_aggregateid", "ib_state", "ib_createdat", "ib_id"
     LIMIT 1)
    UNION ALL
    SELECT nxt.agg, nxt.st, nxt.id, nxt.src
    FROM before_cursor b
    CROSS JOIN LATERAL (
        SELECT "ib_aggregateid" AS agg, "ib_state" AS st, "ib_id" AS id, "ib_source" AS src
        FROM "qb_inbox"
        WHERE "ib_consumption" = 'push' AND "ib_state" IN ('pending', 'processing')
          AND "ib_aggregateid" > b.agg AND "ib_aggregateid" <= $5
        ORDER BY "ib_aggregateid", "ib_state", "ib_createdat", "ib_id"
        LIMIT 1) nxt
), heads AS (
    (SELECT * FROM after_cursor) UNION ALL (SELECT * FROM before_cursor)
), keyed AS (
    SELECT h.id FROM heads h
    WHERE h.st = 'pending'
      AND h.src = ANY($3::text[])
      -- The order makes idx_inbox_push_heads the cheapest path: one probe
      -- of the aggregate's processing entries.
      AND NOT EXISTS (
          SELECT 1 FROM "qb_inbox" busy
          WHERE busy."ib_consumption" = 'push' AND busy."ib_state" IN ('pending', 'processing')
            AND busy."ib_aggregateid" = h.agg AND busy."ib_state" = 'processing'
          ORDER BY busy."ib_aggregateid", busy."ib_state", busy."ib_createdat", busy."ib_id"
          LIMIT 1)
    LIMIT $1
), unkeyed AS (
    SELECT "ib_id" AS id FROM "qb_inbox"
    WHERE "ib_consumption" = 'push' AND "ib_state" = 'pending' AND "ib_aggregateid" IS NULL
      AND "ib_source" = ANY($3::text[])
      AND "ib_createdat" >= COALESCE($6::timestamptz, '-infinity')
    ORDER BY "ib_createdat", "ib_id"
    LIMIT $1
    FOR UPDATE SKIP LOCKED
), candidates AS (
    (SELECT id FROM unkeyed) UNION ALL (SELECT id FROM keyed)
    LIMIT $1
), locked AS (
    -- One primary key probe per candidate, whatever the statistics say;
    -- the state re-check after the lock drops a row that another claim or
    -- writer changed first.
    SELECT l.id FROM candidates c
    CROSS JOIN LATERAL (
        SELECT "ib_id" AS id FROM "qb_inbox"
        WHERE "ib_id" = c.id AND "ib_state" = 'pending'
        FOR UPDATE SKIP LOCKED) l
)
UPDATE "qb_inbox" i
SET "ib_state" = 'processing',
    "ib_claimtoken" = gen_random_uuid(),
    "ib_claimedat" = COALESCE($4::timestamptz, clock_timestamp()),
    "ib_leaseexpiresat" = COALESCE($4::timestamptz, clock_timestamp()) + $2 * interval '1 millisecond'
WHERE i."ib_id" = ANY (ARRAY(SELECT id FROM locked))
RETURNING i."ib_id"::text, i."ib_source", i."ib_idempotencykey", i."ib_aggregateid", i."ib_eventtype",
          i."ib_headers"::text, i."ib_correlationid", i."ib_createdat", i."ib_claimtoken"::text
