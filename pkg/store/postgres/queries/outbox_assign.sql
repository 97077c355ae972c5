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
    SELECT o.{{.O.ID}} AS id
    FROM {{.O.Table}} o
    JOIN d ON o.{{.O.ID}} = d.id
    WHERE o.{{.O.Destination}} = ''
    ORDER BY o.{{.O.ID}}
    FOR UPDATE OF o
), routed AS (
    UPDATE {{.O.Table}} o
    SET {{.O.Destination}} = d.dest,
        {{.O.State}} = CASE WHEN d.reason <> '' THEN 'dead' ELSE o.{{.O.State}} END,
        {{.O.LastError}} = CASE WHEN d.reason <> '' THEN d.reason ELSE o.{{.O.LastError}} END,
        {{.O.ClaimToken}} = CASE WHEN d.reason <> '' THEN NULL ELSE o.{{.O.ClaimToken}} END,
        {{.O.LeaseExpiresAt}} = CASE WHEN d.reason <> '' THEN NULL ELSE o.{{.O.LeaseExpiresAt}} END,
        {{.O.UpdatedAt}} = CASE WHEN d.reason <> '' THEN {{template "now" "$6"}} ELSE o.{{.O.UpdatedAt}} END
    FROM d, locked
    WHERE o.{{.O.ID}} = locked.id
      AND d.id = locked.id
      AND o.{{.O.Destination}} = ''
      AND ((d.token = '' AND o.{{.O.State}} = 'pending')
           OR (d.token <> '' AND o.{{.O.State}} = 'processing' AND o.{{.O.ClaimToken}}::text = d.token
               AND o.{{.O.LeaseExpiresAt}} > {{template "now" "$6"}}))
    RETURNING o.*
), copies AS (
    INSERT INTO {{.O.Table}} ({{.O.ID}}, {{.O.Topic}}, {{.O.Key}}, {{.O.AggregateType}}, {{.O.Payload}},
        {{.O.Headers}}, {{.O.State}}, {{.O.Attempt}}, {{.O.MaxAttempts}}, {{.O.ScheduledAt}}, {{.O.CreatedAt}},
        {{.O.UpdatedAt}}, {{.O.Sequence}}, {{.O.Destination}}, {{.O.OriginID}})
    SELECT gen_random_uuid(), r.{{.O.Topic}}, r.{{.O.Key}}, r.{{.O.AggregateType}}, r.{{.O.Payload}},
        r.{{.O.Headers}}, 'pending', 0, r.{{.O.MaxAttempts}}, r.{{.O.ScheduledAt}}, r.{{.O.CreatedAt}},
        {{template "now" "$6"}}, r.{{.O.Sequence}}, c.dest, r.{{.O.ID}}
    FROM routed r
    JOIN unnest($4::uuid[], $5::text[]) AS c(origin, dest) ON c.origin = r.{{.O.ID}}
)
SELECT {{.O.ID}}::text FROM routed
