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
{{- $ca := ""}}{{if .Partitioned}}{{$ca = printf ", %s AS ca" .O.CreatedAt}}{{end}}
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
    SELECT l.id{{if .Partitioned}}, l.ca{{end}}, d.dest, d.reason
    FROM (SELECT * FROM d ORDER BY id) d
    CROSS JOIN LATERAL (
        SELECT {{.O.ID}} AS id{{$ca}}, {{.O.Destination}} AS dest, {{.O.State}} AS st,
               {{.O.ClaimToken}}::text AS token, {{.O.LeaseExpiresAt}} AS lease
        FROM {{.O.Table}}
        WHERE {{.O.ID}} = d.id
        LIMIT 1
        FOR UPDATE) l
    WHERE l.dest = ''
      AND ((d.token = '' AND l.st = 'pending')
           OR (d.token <> '' AND l.st = 'processing' AND l.token = d.token
               AND l.lease > {{template "now" "$6"}}))
), routed AS (
    -- The update finds its rows by their primary key alone, for the same
    -- reason: one probe per locked row, in its partition. (With the ids
    -- as one array besides the join, the planner read the whole array's
    -- rows once per locked row.)
    UPDATE {{.O.Table}} o
    SET {{.O.Destination}} = l.dest,
        {{.O.State}} = CASE WHEN l.reason <> '' THEN 'dead' ELSE o.{{.O.State}} END,
        {{.O.LastError}} = CASE WHEN l.reason <> '' THEN l.reason ELSE o.{{.O.LastError}} END,
        {{.O.ClaimToken}} = CASE WHEN l.reason <> '' THEN NULL ELSE o.{{.O.ClaimToken}} END,
        {{.O.LeaseExpiresAt}} = CASE WHEN l.reason <> '' THEN NULL ELSE o.{{.O.LeaseExpiresAt}} END,
        {{.O.UpdatedAt}} = CASE WHEN l.reason <> '' THEN {{template "now" "$6"}} ELSE o.{{.O.UpdatedAt}} END
    FROM locked l
    WHERE o.{{.O.ID}} = l.id{{if .Partitioned}} AND o.{{.O.CreatedAt}} = l.ca{{end}}
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
