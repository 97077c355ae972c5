-- Claims up to $1 due rows. A keyed row is claimable only as the head of
-- its lane: a lane is (key, destination), and its head is the pending or
-- processing row of the lane with the lowest sequence. A keyed row gets
-- its destination before any claim (outbox_assign.sql); until then it
-- is in no lane and holds back the rows of its key that come after it,
-- whatever their destination, since its own lane is not known yet. The
-- keyed part walks the distinct lanes of the partial (key, destination,
-- sequence) index one probe per lane, starting after the cursor ($2, $5)
-- and wrapping around, so its cost follows the number of lanes, not the
-- depth of their backlog: a failing destination's backlog costs one
-- probe per lane. Rows without a key (null or '') come from the
-- partial (scheduled_at, sequence) indexes of due unkeyed rows (V14), the
-- earliest due first, so the scan starts at a due row and never walks the
-- rows that wait for a later time: a paused destination's deferred
-- backlog costs the claims of the other destinations nothing. They are
-- locked as they are read (SKIP LOCKED), so a concurrent claim of another
-- replica takes the rows after them instead of colliding on the same
-- ones. CTEs are read lazily: the LIMIT of
-- candidates stops both scans, and no row is locked that is not claimed.
-- Keyed heads are locked afterwards with SKIP LOCKED; the state re-check
-- after the lock drops a row that a concurrent claim took first. $4 is
-- the nullable clock (the "now" partial of partials.sql, written out so
-- that this template renders on its own): NULL reads the database clock.
-- $6 is the lower bound of the unkeyed scans (scheduled_at), NULL for
-- none: under a transaction older than the rows claimed since, their
-- index entries cannot be removed, and a scan from the start steps over
-- all of them (see package scanfloor, which keeps the bound and runs an
-- unbounded scan often enough that no row below it is left behind).
-- Each row returns its scheduled_at last, for that bound.
-- Every scan of the lane index repeats its predicate (state and key >
-- '') word for word, so the planner can use the partial index.
-- An outbox without the lane columns (a custom table made before V16,
-- schema.Outbox.Lanes false) is claimed in key order instead, as before
-- lanes: its keyed part walks the distinct keys of a (key, sequence)
-- index and takes the head of each key; no row has a destination or an
-- origin, and $5 is only typed.
-- On a partitioned outbox (database.partitioning) every scan would probe
-- the indexes of every partition, the old days' and the ones made ahead
-- included, which hold no pending row in the normal course. There the
-- statement first reads the lowest and the highest created_at of a
-- pending or processing row (active_floor, two probes of the partial
-- index idx_outbox_active_created that only a partitioned outbox has) and
-- bounds the scans of the lane index by them, one per lane, so PostgreSQL
-- prunes the other partitions as the statement runs. The bounds are read
-- in the statement's own snapshot, so they leave out no row the scans
-- could see. (The index's condition on created_at keeps it out of the
-- other scans: see activeIndexOn in partition.go.) The scans of unkeyed
-- rows, one each per claim, are left unbounded: bounded, the planner
-- guessed a narrow range and sorted every due row instead of reading the
-- first ones in order. Each candidate carries its created_at (ca), so
-- its lock and its update probe one partition.
WITH RECURSIVE active_floor AS (
    SELECT min("created_at") AS lo, max("created_at") AS hi FROM "outbox"
    WHERE "state" IN ('pending', 'processing') AND "created_at" > '-infinity'
), after_cursor AS (
    (SELECT "key" AS k, "destination" AS d, "id" AS id, "created_at" AS ca, "state" AS st,
            "scheduled_at" AS due, "sequence" AS seq
     FROM "outbox"
     WHERE "state" IN ('pending', 'processing') AND "key" > '' AND "created_at" BETWEEN (SELECT lo FROM active_floor) AND (SELECT hi FROM active_floor)
       AND ("key", "destination") > ($2, $5)
     ORDER BY "key", "destination", "sequence"
     LIMIT 1)
    UNION ALL
    SELECT nxt.k, nxt.d, nxt.id, nxt.ca, nxt.st, nxt.due, nxt.seq
    FROM after_cursor a
    CROSS JOIN LATERAL (
        SELECT "key" AS k, "destination" AS d, "id" AS id, "created_at" AS ca, "state" AS st,
               "scheduled_at" AS due, "sequence" AS seq
        FROM "outbox"
        WHERE "state" IN ('pending', 'processing') AND "key" > '' AND "created_at" BETWEEN (SELECT lo FROM active_floor) AND (SELECT hi FROM active_floor)
          AND ("key", "destination") > (a.k, a.d)
        ORDER BY "key", "destination", "sequence"
        LIMIT 1) nxt
), before_cursor AS (
    (SELECT "key" AS k, "destination" AS d, "id" AS id, "created_at" AS ca, "state" AS st,
            "scheduled_at" AS due, "sequence" AS seq
     FROM "outbox"
     WHERE "state" IN ('pending', 'processing') AND "key" > '' AND "created_at" BETWEEN (SELECT lo FROM active_floor) AND (SELECT hi FROM active_floor)
       AND ("key", "destination") <= ($2, $5)
     ORDER BY "key", "destination", "sequence"
     LIMIT 1)
    UNION ALL
    SELECT nxt.k, nxt.d, nxt.id, nxt.ca, nxt.st, nxt.due, nxt.seq
    FROM before_cursor b
    CROSS JOIN LATERAL (
        SELECT "key" AS k, "destination" AS d, "id" AS id, "created_at" AS ca, "state" AS st,
               "scheduled_at" AS due, "sequence" AS seq
        FROM "outbox"
        WHERE "state" IN ('pending', 'processing') AND "key" > '' AND "created_at" BETWEEN (SELECT lo FROM active_floor) AND (SELECT hi FROM active_floor)
          AND ("key", "destination") > (b.k, b.d)
          AND ("key", "destination") <= ($2, $5)
        ORDER BY "key", "destination", "sequence"
        LIMIT 1) nxt
), heads AS (
    (SELECT * FROM after_cursor) UNION ALL (SELECT * FROM before_cursor)
), keyed AS (
    -- A routed lane's head is due and no row of its key waits for its
    -- destination with a lower sequence (one probe of the unrouted lane).
    SELECT h.id, h.ca FROM heads h
    WHERE h.st = 'pending' AND h.d <> '' AND h.due <= COALESCE($4::timestamptz, now())
      AND NOT EXISTS (
        SELECT 1 FROM "outbox" u
        WHERE u."state" IN ('pending', 'processing') AND u."key" > '' AND u."created_at" BETWEEN (SELECT lo FROM active_floor) AND (SELECT hi FROM active_floor)
          AND u."key" = h.k AND u."destination" = '' AND u."sequence" < h.seq)
    LIMIT $1
), unkeyed_null AS (
    SELECT "id" AS id, "created_at" AS ca FROM "outbox"
    WHERE "state" = 'pending' AND "key" IS NULL
      AND "scheduled_at" <= COALESCE($4::timestamptz, now())
      AND "scheduled_at" >= COALESCE($6::timestamptz, '-infinity')
    ORDER BY "scheduled_at", "sequence"
    LIMIT $1
    FOR UPDATE SKIP LOCKED
), unkeyed_empty AS (
    SELECT "id" AS id, "created_at" AS ca FROM "outbox"
    WHERE "state" = 'pending' AND "key" = ''
      AND "scheduled_at" <= COALESCE($4::timestamptz, now())
      AND "scheduled_at" >= COALESCE($6::timestamptz, '-infinity')
    ORDER BY "scheduled_at", "sequence"
    LIMIT $1
    FOR UPDATE SKIP LOCKED
), unkeyed AS (
    (SELECT id, ca FROM unkeyed_null) UNION ALL (SELECT id, ca FROM unkeyed_empty)
    LIMIT $1
), candidates AS (
    (SELECT id, ca FROM keyed) UNION ALL (SELECT id, ca FROM unkeyed)
    LIMIT $1
), locked AS (
    -- One primary key probe per candidate, whatever the statistics say;
    -- the state re-check after the lock drops a row that a concurrent
    -- claim took first.
    SELECT l.id, l.ca FROM candidates c
    CROSS JOIN LATERAL (
        SELECT "id" AS id, "created_at" AS ca FROM "outbox"
        WHERE "id" = c.id AND "created_at" = c.ca
          AND "state" = 'pending' AND "scheduled_at" <= COALESCE($4::timestamptz, now())
        FOR UPDATE SKIP LOCKED) l
)
-- The lease starts when the row is updated (clock_timestamp()), not when
-- the statement began, so the claim's own time is not taken out of it.
UPDATE "outbox" o
SET "state" = 'processing',
    "claim_token" = gen_random_uuid(),
    "claimed_at" = COALESCE($4::timestamptz, clock_timestamp()),
    "lease_expires_at" = COALESCE($4::timestamptz, clock_timestamp()) + $3 * interval '1 millisecond',
    "updated_at" = COALESCE($4::timestamptz, now())
WHERE o."id" = ANY (ARRAY(SELECT id FROM locked))
  AND o."created_at" BETWEEN (SELECT min(ca) FROM locked) AND (SELECT max(ca) FROM locked)
RETURNING o."id"::text, o."topic", o."key", o."aggregate_type", o."payload"::text,
          o."headers"::text, o."attempt", o."max_attempts", o."created_at",
          o."sequence", o."claim_token"::text,
          o."destination", o."origin_id"::text,
          o."scheduled_at"
