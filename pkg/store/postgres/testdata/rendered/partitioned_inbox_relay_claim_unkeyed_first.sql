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
WITH RECURSIVE active_floor AS (
    SELECT min("created_at") AS lo, max("created_at") AS hi FROM "inbox"
    WHERE "state" IN ('pending', 'processing') AND "created_at" > '-infinity'
), after_cursor AS (
    (SELECT "aggregate_id" AS agg, "state" AS st, "id" AS id, "created_at" AS ca, "source" AS src
     FROM "inbox"
     WHERE "consumption" = 'push' AND "state" IN ('pending', 'processing') AND "aggregate_id" > $5 AND "created_at" BETWEEN (SELECT lo FROM active_floor) AND (SELECT hi FROM active_floor)
     ORDER BY "aggregate_id", "state", "created_at", "id"
     LIMIT 1)
    UNION ALL
    SELECT nxt.agg, nxt.st, nxt.id, nxt.ca, nxt.src
    FROM after_cursor a
    CROSS JOIN LATERAL (
        SELECT "aggregate_id" AS agg, "state" AS st, "id" AS id, "created_at" AS ca, "source" AS src
        FROM "inbox"
        WHERE "consumption" = 'push' AND "state" IN ('pending', 'processing') AND "aggregate_id" > a.agg AND "created_at" BETWEEN (SELECT lo FROM active_floor) AND (SELECT hi FROM active_floor)
        ORDER BY "aggregate_id", "state", "created_at", "id"
        LIMIT 1) nxt
), before_cursor AS (
    (SELECT "aggregate_id" AS agg, "state" AS st, "id" AS id, "created_at" AS ca, "source" AS src
     FROM "inbox"
     WHERE "consumption" = 'push' AND "state" IN ('pending', 'processing')
       AND "aggregate_id" IS NOT NULL AND "aggregate_id" <= $5 AND "created_at" BETWEEN (SELECT lo FROM active_floor) AND (SELECT hi FROM active_floor)
     ORDER BY "aggregate_id", "state", "created_at", "id"
     LIMIT 1)
    UNION ALL
    SELECT nxt.agg, nxt.st, nxt.id, nxt.ca, nxt.src
    FROM before_cursor b
    CROSS JOIN LATERAL (
        SELECT "aggregate_id" AS agg, "state" AS st, "id" AS id, "created_at" AS ca, "source" AS src
        FROM "inbox"
        WHERE "consumption" = 'push' AND "state" IN ('pending', 'processing')
          AND "aggregate_id" > b.agg AND "aggregate_id" <= $5 AND "created_at" BETWEEN (SELECT lo FROM active_floor) AND (SELECT hi FROM active_floor)
        ORDER BY "aggregate_id", "state", "created_at", "id"
        LIMIT 1) nxt
), heads AS (
    (SELECT * FROM after_cursor) UNION ALL (SELECT * FROM before_cursor)
), keyed AS (
    SELECT h.id, h.ca FROM heads h
    WHERE h.st = 'pending'
      AND h.src = ANY($3::text[])
      -- The order makes idx_inbox_push_heads the cheapest path: one probe
      -- of the aggregate's processing entries.
      AND NOT EXISTS (
          SELECT 1 FROM "inbox" busy
          WHERE busy."consumption" = 'push' AND busy."state" IN ('pending', 'processing')
            AND busy."aggregate_id" = h.agg AND busy."state" = 'processing' AND busy."created_at" BETWEEN (SELECT lo FROM active_floor) AND (SELECT hi FROM active_floor)
          ORDER BY busy."aggregate_id", busy."state", busy."created_at", busy."id"
          LIMIT 1)
    LIMIT $1
), unkeyed AS (
    SELECT "id" AS id, "created_at" AS ca FROM "inbox"
    WHERE "consumption" = 'push' AND "state" = 'pending' AND "aggregate_id" IS NULL
      AND "source" = ANY($3::text[])
      AND "created_at" >= COALESCE($6::timestamptz, '-infinity')
    ORDER BY "created_at", "id"
    LIMIT $1
    FOR UPDATE SKIP LOCKED
), candidates AS (
    (SELECT id, ca FROM unkeyed) UNION ALL (SELECT id, ca FROM keyed)
    LIMIT $1
), locked AS (
    -- One primary key probe per candidate, whatever the statistics say;
    -- the state re-check after the lock drops a row that another claim or
    -- writer changed first.
    SELECT l.id, l.ca FROM candidates c
    CROSS JOIN LATERAL (
        SELECT "id" AS id, "created_at" AS ca FROM "inbox"
        WHERE "id" = c.id AND "created_at" = c.ca AND "state" = 'pending'
        FOR UPDATE SKIP LOCKED) l
)
UPDATE "inbox" i
SET "state" = 'processing',
    "claim_token" = gen_random_uuid(),
    "claimed_at" = COALESCE($4::timestamptz, clock_timestamp()),
    "lease_expires_at" = COALESCE($4::timestamptz, clock_timestamp()) + $2 * interval '1 millisecond'
WHERE i."id" = ANY (ARRAY(SELECT id FROM locked))
  AND i."created_at" BETWEEN (SELECT min(ca) FROM locked) AND (SELECT max(ca) FROM locked)
RETURNING i."id"::text, i."source", i."idempotency_key", i."aggregate_id", i."event_type",
          i."headers"::text, i."correlation_id", i."created_at", i."claim_token"::text
