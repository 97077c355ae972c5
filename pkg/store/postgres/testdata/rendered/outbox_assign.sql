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
    -- different orders and deadlock.
    SELECT o."ob_id" AS id
    FROM "qb_outbox" o
    JOIN d ON o."ob_id" = d.id
    WHERE o."ob_destination" = ''
    ORDER BY o."ob_id"
    FOR UPDATE OF o
), routed AS (
    UPDATE "qb_outbox" o
    SET "ob_destination" = d.dest,
        "ob_state" = CASE WHEN d.reason <> '' THEN 'dead' ELSE o."ob_state" END,
        "ob_lasterror" = CASE WHEN d.reason <> '' THEN d.reason ELSE o."ob_lasterror" END,
        "ob_claimtoken" = CASE WHEN d.reason <> '' THEN NULL ELSE o."ob_claimtoken" END,
        "ob_leaseexpiresat" = CASE WHEN d.reason <> '' THEN NULL ELSE o."ob_leaseexpiresat" END,
        "ob_updatedat" = CASE WHEN d.reason <> '' THEN COALESCE($6::timestamptz, now()) ELSE o."ob_updatedat" END
    FROM d, locked
    WHERE o."ob_id" = locked.id
      AND d.id = locked.id
      AND o."ob_destination" = ''
      AND ((d.token = '' AND o."ob_state" = 'pending')
           OR (d.token <> '' AND o."ob_state" = 'processing' AND o."ob_claimtoken"::text = d.token
               AND o."ob_leaseexpiresat" > COALESCE($6::timestamptz, now())))
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
