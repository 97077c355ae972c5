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
-- $7 and $8 are the caller's hints (package lanehint): an aggregate and
-- the created_at of the last head it claimed there, and $9 the inbox's
-- requeue count they were taken under. The walk goes in steps as
-- outbox_claim.sql's does: the aggregates in the gaps between hinted ones
-- are walked one probe each from their first entry, and a hinted
-- aggregate is probed from its hint, past none of the entries an old
-- transaction keeps of the rows it relayed before. With another count
-- than $9 (a move back to pending since), or none, no hint is used. $10
-- is where active_floor's probe of the oldest active row starts while
-- that count holds (NULL: from the start). Each row returns the count
-- read and the oldest active created_at, last.
--
-- On a partitioned inbox (database.partitioning) the statement first
-- reads the lowest and the highest created_at of a pending or processing
-- row (active_floor, from idx_inbox_active_created, which only a
-- partitioned inbox has) and bounds the walk's probes and the busy
-- probe by them, so PostgreSQL leaves the partitions outside unvisited,
-- as outbox_claim.sql does; each candidate carries its created_at (ca),
-- so its lock and its update probe one partition.
WITH RECURSIVE requeues AS (
    SELECT COALESCE((SELECT requeues FROM "queuebox_requeues" WHERE queue = 'inbox'), 0) AS n,
           $10::timestamptz AS lo_hint
), marks AS (
    -- The caller's hints in the index's order, kept only when no move
    -- back to pending has been counted since they were taken, each with
    -- the mark before it.
    SELECT h.agg, h.hc, lag(h.agg) OVER o AS pagg
    FROM unnest($7::text[], $8::timestamptz[]) AS h(agg, hc)
    WHERE $9::bigint = (SELECT n FROM requeues)
    WINDOW o AS (ORDER BY h.agg)
), steps AS (
    -- The walk in steps, as outbox_claim.sql's: from the cursor $5 to the
    -- end of the index (parts 0 and 1), then from its start to the cursor
    -- (2 and 3). Each step walks the aggregates in a gap between two marks
    -- (from lo, included when lo_incl: the start of the index; to hi,
    -- included when incl; no end when hi is NULL), then probes its mark's
    -- aggregate from the hint.
    SELECT 0 AS part, m.agg AS ord, CASE WHEN m.pagg > $5 THEN m.pagg ELSE $5 END AS lo, FALSE AS lo_incl,
           m.agg AS hi, FALSE AS incl, m.hc
    FROM marks m WHERE m.agg > $5
    UNION ALL
    SELECT 1, NULL, COALESCE(t.agg, $5), FALSE, NULL, FALSE, NULL
    FROM (SELECT 1) one LEFT JOIN (SELECT agg FROM marks WHERE agg > $5 ORDER BY agg DESC LIMIT 1) t ON TRUE
    UNION ALL
    SELECT 2, m.agg, COALESCE(m.pagg, ''), m.pagg IS NULL, m.agg, FALSE, m.hc
    FROM marks m WHERE m.agg <= $5
    UNION ALL
    SELECT 3, NULL, COALESCE(t.agg, ''), t.agg IS NULL, $5, TRUE, NULL
    FROM (SELECT 1) one LEFT JOIN (SELECT agg FROM marks WHERE agg <= $5 ORDER BY agg DESC LIMIT 1) t ON TRUE
), heads AS (
    -- Each step's gap one probe per aggregate, from the aggregate's first
    -- entry (its head when it is pending: pending sorts before
    -- processing), then its mark's aggregate from the hint: the first
    -- pending row at or after it.
    SELECT w.* FROM (SELECT * FROM steps ORDER BY part, ord) st
    CROSS JOIN LATERAL (
        (WITH RECURSIVE gap AS (
            ((SELECT * FROM ((SELECT "ib_aggregateid" AS agg, "ib_state" AS st, "ib_id" AS id, "ib_source" AS src FROM "qb_inbox"
         WHERE NOT st.lo_incl AND st.hi IS NOT NULL AND NOT st.incl AND "ib_consumption" = 'push' AND "ib_state" IN ('pending', 'processing')
           AND "ib_aggregateid" > st.lo AND "ib_aggregateid" < st.hi
         ORDER BY "ib_aggregateid", "ib_state", "ib_createdat", "ib_id"
         LIMIT 1)
        UNION ALL
        (SELECT "ib_aggregateid" AS agg, "ib_state" AS st, "ib_id" AS id, "ib_source" AS src FROM "qb_inbox"
         WHERE NOT st.lo_incl AND st.incl AND "ib_consumption" = 'push' AND "ib_state" IN ('pending', 'processing')
           AND "ib_aggregateid" > st.lo AND "ib_aggregateid" <= st.hi
         ORDER BY "ib_aggregateid", "ib_state", "ib_createdat", "ib_id"
         LIMIT 1)
        UNION ALL
        (SELECT "ib_aggregateid" AS agg, "ib_state" AS st, "ib_id" AS id, "ib_source" AS src FROM "qb_inbox"
         WHERE NOT st.lo_incl AND st.hi IS NULL AND "ib_consumption" = 'push' AND "ib_state" IN ('pending', 'processing')
           AND "ib_aggregateid" > st.lo
         ORDER BY "ib_aggregateid", "ib_state", "ib_createdat", "ib_id"
         LIMIT 1)
        LIMIT 1) a)
             UNION ALL
             (SELECT * FROM ((SELECT "ib_aggregateid" AS agg, "ib_state" AS st, "ib_id" AS id, "ib_source" AS src FROM "qb_inbox"
         WHERE st.lo_incl AND st.hi IS NOT NULL AND NOT st.incl AND "ib_consumption" = 'push' AND "ib_state" IN ('pending', 'processing')
           AND "ib_aggregateid" >= st.lo AND "ib_aggregateid" < st.hi
         ORDER BY "ib_aggregateid", "ib_state", "ib_createdat", "ib_id"
         LIMIT 1)
        UNION ALL
        (SELECT "ib_aggregateid" AS agg, "ib_state" AS st, "ib_id" AS id, "ib_source" AS src FROM "qb_inbox"
         WHERE st.lo_incl AND st.incl AND "ib_consumption" = 'push' AND "ib_state" IN ('pending', 'processing')
           AND "ib_aggregateid" >= st.lo AND "ib_aggregateid" <= st.hi
         ORDER BY "ib_aggregateid", "ib_state", "ib_createdat", "ib_id"
         LIMIT 1)
        UNION ALL
        (SELECT "ib_aggregateid" AS agg, "ib_state" AS st, "ib_id" AS id, "ib_source" AS src FROM "qb_inbox"
         WHERE st.lo_incl AND st.hi IS NULL AND "ib_consumption" = 'push' AND "ib_state" IN ('pending', 'processing')
           AND "ib_aggregateid" >= st.lo
         ORDER BY "ib_aggregateid", "ib_state", "ib_createdat", "ib_id"
         LIMIT 1)
        LIMIT 1) b)
             LIMIT 1)
            UNION ALL
            SELECT nxt.* FROM gap g CROSS JOIN LATERAL (
                (SELECT "ib_aggregateid" AS agg, "ib_state" AS st, "ib_id" AS id, "ib_source" AS src FROM "qb_inbox"
         WHERE TRUE AND st.hi IS NOT NULL AND NOT st.incl AND "ib_consumption" = 'push' AND "ib_state" IN ('pending', 'processing')
           AND "ib_aggregateid" > g.agg AND "ib_aggregateid" < st.hi
         ORDER BY "ib_aggregateid", "ib_state", "ib_createdat", "ib_id"
         LIMIT 1)
        UNION ALL
        (SELECT "ib_aggregateid" AS agg, "ib_state" AS st, "ib_id" AS id, "ib_source" AS src FROM "qb_inbox"
         WHERE TRUE AND st.incl AND "ib_consumption" = 'push' AND "ib_state" IN ('pending', 'processing')
           AND "ib_aggregateid" > g.agg AND "ib_aggregateid" <= st.hi
         ORDER BY "ib_aggregateid", "ib_state", "ib_createdat", "ib_id"
         LIMIT 1)
        UNION ALL
        (SELECT "ib_aggregateid" AS agg, "ib_state" AS st, "ib_id" AS id, "ib_source" AS src FROM "qb_inbox"
         WHERE TRUE AND st.hi IS NULL AND "ib_consumption" = 'push' AND "ib_state" IN ('pending', 'processing')
           AND "ib_aggregateid" > g.agg
         ORDER BY "ib_aggregateid", "ib_state", "ib_createdat", "ib_id"
         LIMIT 1)
        LIMIT 1) nxt
         ) SELECT gap.*, NULL::timestamptz AS hc FROM gap)
        UNION ALL
        (SELECT x.*, st.hc
         FROM (SELECT 1) one CROSS JOIN LATERAL (
             SELECT "ib_aggregateid" AS agg, "ib_state" AS st, "ib_id" AS id, "ib_source" AS src FROM "qb_inbox"
             WHERE "ib_consumption" = 'push' AND "ib_state" IN ('pending', 'processing') AND "ib_aggregateid" >= st.hi AND "ib_aggregateid" <= st.hi
               AND "ib_state" <= 'pending' AND "ib_createdat" >= st.hc
             ORDER BY "ib_aggregateid", "ib_state", "ib_createdat", "ib_id"
             LIMIT 1) x
         WHERE st.hc IS NOT NULL)
    ) w
), keyed AS (
    SELECT h.id FROM heads h
    -- One probe of the aggregate's processing entries, from the hint
    -- when there is one (a processing row of the aggregate is the last
    -- head claimed there, or one after it). A lateral probe with a limit
    -- runs once per head through idx_inbox_push_heads, where NOT EXISTS
    -- let the planner read every processing entry once instead, all the
    -- entries an old transaction keeps included. The aggregate is bounded
    -- from both sides (>= and <=) as the hinted probe above is: with an
    -- equality the planner chose idx_inbox_consumption_pending and a sort
    -- on statistics taken before a backlog.
    LEFT JOIN LATERAL (
        SELECT 1 AS held FROM "qb_inbox" busy
        WHERE busy."ib_consumption" = 'push' AND busy."ib_state" IN ('pending', 'processing')
          AND busy."ib_aggregateid" >= h.agg AND busy."ib_aggregateid" <= h.agg
          AND busy."ib_state" >= 'processing' AND busy."ib_createdat" >= COALESCE(h.hc, '-infinity')
        ORDER BY busy."ib_aggregateid", busy."ib_state", busy."ib_createdat", busy."ib_id"
        LIMIT 1) b ON TRUE
    WHERE h.st = 'pending' AND h.src = ANY($3::text[]) AND b.held IS NULL
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
    -- One primary key probe per candidate, whatever the statistics say:
    -- the probe names the key's columns alone, and the state re-check
    -- reads the version of the row that the lock returns, so it drops a
    -- row that another claim or writer changed first. The LIMIT keeps the
    -- planner from pushing the re-check down into the probe (see
    -- outbox_claim.sql: with the state in the probe, a partition's index
    -- of pending rows could be read once per candidate).
    SELECT l.id FROM candidates c
    CROSS JOIN LATERAL (
        SELECT "ib_id" AS id, "ib_state" AS st FROM "qb_inbox"
        WHERE "ib_id" = c.id
        LIMIT 1
        FOR UPDATE SKIP LOCKED) l
    WHERE l.st = 'pending'
)
UPDATE "qb_inbox" i
SET "ib_state" = 'processing',
    "ib_claimtoken" = gen_random_uuid(),
    "ib_claimedat" = COALESCE($4::timestamptz, clock_timestamp()),
    "ib_leaseexpiresat" = COALESCE($4::timestamptz, clock_timestamp()) + $2 * interval '1 millisecond'
WHERE i."ib_id" = ANY (ARRAY(SELECT id FROM locked))
RETURNING i."ib_id"::text, i."ib_source", i."ib_idempotencykey", i."ib_aggregateid", i."ib_eventtype",
          i."ib_headers"::text, i."ib_correlationid", i."ib_createdat", i."ib_claimtoken"::text, (SELECT n FROM requeues),
          NULL::timestamptz
