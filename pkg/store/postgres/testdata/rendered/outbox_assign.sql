-- Routes rows: each row of $1 takes the destination $2 when it has none
-- yet (or, with a reason $7 that is not empty, goes dead with it: no
-- route matches its topic), and for each pair of ($4, $5) whose origin row was routed here a
-- delivery of that row to destination $5 is added (a fan-out). A row
-- with an empty token ($3) must be pending (a keyed row, routed before
-- any claim); one with a token must be processing under that token and a
-- live lease (a row without a key, routed at its claim; the "fence_holds"
-- partial). The condition that the row has no destination yet makes the
-- statement idempotent: a second try, or another replica routing the
-- same row, changes nothing and adds no delivery. A delivery copies what
-- the receiver gets and the lane's place: key, sequence, topic, payload,
-- headers, aggregate type, max_attempts, scheduled_at and created_at; it
-- starts pending with attempt 0 and origin_id naming the row. Columns of
-- a custom table that are not mapped take their defaults. $6 is the
-- nullable clock. Returns the ids routed.
WITH d AS MATERIALIZED (
    SELECT * FROM unnest($1::uuid[], $2::text[], $3::text[], $7::text[]) AS d(id, dest, token, reason)
), locked AS MATERIALIZED (
    -- The rows are locked in id order first, as the fence and the renewal
    -- lock them: replicas that route the same rows at once, or a routing
    -- beside an outcome write, would otherwise lock shared rows in
    -- different orders and deadlock. Each row is locked by a probe of its
    -- primary key alone, and its destination, state and token are checked
    -- on the version the lock returns: with those conditions in the scan,
    -- on a partition analyzed while it was empty (each new one, until
    -- autovacuum analyzes it), the planner read every pending and
    -- processing row of the partition for each routing (1 to 2 s under a
    -- backlog, in the soak). A row that fails the check stays locked until
    -- the statement ends, and is not routed.
    SELECT l.id, d.dest, d.reason
    FROM (SELECT * FROM d ORDER BY id) d
    CROSS JOIN LATERAL (
        SELECT "ob_id" AS id, "ob_destination" AS dest, "ob_state" AS st,
               "ob_claimtoken"::text AS token, "ob_leaseexpiresat" AS lease
        FROM "qb_outbox"
        WHERE "ob_id" = d.id
        LIMIT 1
        FOR UPDATE) l
    WHERE l.dest = ''
      AND ((d.token = '' AND l.st = 'pending')
           OR (d.token <> '' AND l.st = 'processing' AND l.token = d.token
               AND l.lease > COALESCE($6::timestamptz, now())))
), routed AS (
    -- The update finds its rows by their primary key alone, for the same
    -- reason: one probe per locked row, in its partition. (With the ids
    -- as one array besides the join, the planner read the whole array's
    -- rows once per locked row.)
    UPDATE "qb_outbox" o
    SET "ob_destination" = l.dest,
        "ob_state" = CASE WHEN l.reason <> '' THEN 'dead' ELSE o."ob_state" END,
        "ob_lasterror" = CASE WHEN l.reason <> '' THEN l.reason ELSE o."ob_lasterror" END,
        "ob_claimtoken" = CASE WHEN l.reason <> '' THEN NULL ELSE o."ob_claimtoken" END,
        "ob_leaseexpiresat" = CASE WHEN l.reason <> '' THEN NULL ELSE o."ob_leaseexpiresat" END,
        "ob_updatedat" = CASE WHEN l.reason <> '' THEN COALESCE($6::timestamptz, now()) ELSE o."ob_updatedat" END
    FROM locked l
    WHERE o."ob_id" = l.id
    RETURNING o.*
), copies AS (
    INSERT INTO "qb_outbox" ("ob_id", "ob_topic", "ob_key", "ob_aggregatetype", "ob_payload",
        "ob_headers", "ob_state", "ob_attempt", "ob_maxattempts", "ob_scheduledat", "ob_createdat",
        "ob_updatedat", "ob_sequence", "ob_destination", "ob_originid")
    SELECT gen_random_uuid(), r."ob_topic", r."ob_key", r."ob_aggregatetype", r."ob_payload",
        r."ob_headers", 'pending', 0, r."ob_maxattempts", r."ob_scheduledat", r."ob_createdat",
        COALESCE($6::timestamptz, now()), r."ob_sequence", c.dest, r."ob_id"
    FROM routed r
    JOIN unnest($4::uuid[], $5::text[]) AS c(origin, dest) ON c.origin = r."ob_id"
)
SELECT "ob_id"::text FROM routed
