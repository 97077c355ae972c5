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
{{- $floor := ""}}{{$ufloor := ""}}{{$ca := ""}}{{$c := ""}}
{{- if .Partitioned}}
{{- $floor = printf " AND %s BETWEEN (SELECT lo FROM active_floor) AND (SELECT hi FROM active_floor)" .O.CreatedAt}}
{{- $ufloor = printf " AND u.%s BETWEEN (SELECT lo FROM active_floor) AND (SELECT hi FROM active_floor)" .O.CreatedAt}}
{{- $ca = printf ", %s AS ca" .O.CreatedAt}}{{$c = ", ca"}}
{{- end}}
WITH RECURSIVE {{if .Partitioned}}active_floor AS (
    SELECT min({{.O.CreatedAt}}) AS lo, max({{.O.CreatedAt}}) AS hi FROM {{.O.Table}}
    WHERE {{.O.State}} IN ('pending', 'processing') AND {{.O.CreatedAt}} > '-infinity'
), {{end}}{{if .O.Lanes}}after_cursor AS (
    (SELECT {{.O.Key}} AS k, {{.O.Destination}} AS d, {{.O.ID}} AS id{{$ca}}, {{.O.State}} AS st,
            {{.O.ScheduledAt}} AS due, {{.O.Sequence}} AS seq
     FROM {{.O.Table}}
     WHERE {{.O.State}} IN ('pending', 'processing') AND {{.O.Key}} > ''{{$floor}}
       AND ({{.O.Key}}, {{.O.Destination}}) > ($2, $5)
     ORDER BY {{.O.Key}}, {{.O.Destination}}, {{.O.Sequence}}
     LIMIT 1)
    UNION ALL
    SELECT nxt.k, nxt.d, nxt.id{{if .Partitioned}}, nxt.ca{{end}}, nxt.st, nxt.due, nxt.seq
    FROM after_cursor a
    CROSS JOIN LATERAL (
        SELECT {{.O.Key}} AS k, {{.O.Destination}} AS d, {{.O.ID}} AS id{{$ca}}, {{.O.State}} AS st,
               {{.O.ScheduledAt}} AS due, {{.O.Sequence}} AS seq
        FROM {{.O.Table}}
        WHERE {{.O.State}} IN ('pending', 'processing') AND {{.O.Key}} > ''{{$floor}}
          AND ({{.O.Key}}, {{.O.Destination}}) > (a.k, a.d)
        ORDER BY {{.O.Key}}, {{.O.Destination}}, {{.O.Sequence}}
        LIMIT 1) nxt
), before_cursor AS (
    (SELECT {{.O.Key}} AS k, {{.O.Destination}} AS d, {{.O.ID}} AS id{{$ca}}, {{.O.State}} AS st,
            {{.O.ScheduledAt}} AS due, {{.O.Sequence}} AS seq
     FROM {{.O.Table}}
     WHERE {{.O.State}} IN ('pending', 'processing') AND {{.O.Key}} > ''{{$floor}}
       AND ({{.O.Key}}, {{.O.Destination}}) <= ($2, $5)
     ORDER BY {{.O.Key}}, {{.O.Destination}}, {{.O.Sequence}}
     LIMIT 1)
    UNION ALL
    SELECT nxt.k, nxt.d, nxt.id{{if .Partitioned}}, nxt.ca{{end}}, nxt.st, nxt.due, nxt.seq
    FROM before_cursor b
    CROSS JOIN LATERAL (
        SELECT {{.O.Key}} AS k, {{.O.Destination}} AS d, {{.O.ID}} AS id{{$ca}}, {{.O.State}} AS st,
               {{.O.ScheduledAt}} AS due, {{.O.Sequence}} AS seq
        FROM {{.O.Table}}
        WHERE {{.O.State}} IN ('pending', 'processing') AND {{.O.Key}} > ''{{$floor}}
          AND ({{.O.Key}}, {{.O.Destination}}) > (b.k, b.d)
          AND ({{.O.Key}}, {{.O.Destination}}) <= ($2, $5)
        ORDER BY {{.O.Key}}, {{.O.Destination}}, {{.O.Sequence}}
        LIMIT 1) nxt
), heads AS (
    (SELECT * FROM after_cursor) UNION ALL (SELECT * FROM before_cursor)
), keyed AS (
    -- A routed lane's head is due and no row of its key waits for its
    -- destination with a lower sequence (one probe of the unrouted lane).
    SELECT h.id{{if .Partitioned}}, h.ca{{end}} FROM heads h
    WHERE h.st = 'pending' AND h.d <> '' AND h.due <= COALESCE($4::timestamptz, now())
      AND NOT EXISTS (
        SELECT 1 FROM {{.O.Table}} u
        WHERE u.{{.O.State}} IN ('pending', 'processing') AND u.{{.O.Key}} > ''{{$ufloor}}
          AND u.{{.O.Key}} = h.k AND u.{{.O.Destination}} = '' AND u.{{.O.Sequence}} < h.seq)
    LIMIT $1
{{else}}unused AS (SELECT $5::text), after_cursor AS (
    (SELECT {{.O.Key}} AS k, {{.O.ID}} AS id, {{.O.State}} AS st, {{.O.ScheduledAt}} AS due
     FROM {{.O.Table}}
     WHERE {{.O.State}} IN ('pending', 'processing') AND {{.O.Key}} > $2
     ORDER BY {{.O.Key}}, {{.O.Sequence}}
     LIMIT 1)
    UNION ALL
    SELECT nxt.k, nxt.id, nxt.st, nxt.due
    FROM after_cursor a
    CROSS JOIN LATERAL (
        SELECT {{.O.Key}} AS k, {{.O.ID}} AS id, {{.O.State}} AS st, {{.O.ScheduledAt}} AS due
        FROM {{.O.Table}}
        WHERE {{.O.State}} IN ('pending', 'processing') AND {{.O.Key}} > a.k
        ORDER BY {{.O.Key}}, {{.O.Sequence}}
        LIMIT 1) nxt
), before_cursor AS (
    (SELECT {{.O.Key}} AS k, {{.O.ID}} AS id, {{.O.State}} AS st, {{.O.ScheduledAt}} AS due
     FROM {{.O.Table}}
     WHERE {{.O.State}} IN ('pending', 'processing') AND {{.O.Key}} > '' AND {{.O.Key}} <= $2
     ORDER BY {{.O.Key}}, {{.O.Sequence}}
     LIMIT 1)
    UNION ALL
    SELECT nxt.k, nxt.id, nxt.st, nxt.due
    FROM before_cursor b
    CROSS JOIN LATERAL (
        SELECT {{.O.Key}} AS k, {{.O.ID}} AS id, {{.O.State}} AS st, {{.O.ScheduledAt}} AS due
        FROM {{.O.Table}}
        WHERE {{.O.State}} IN ('pending', 'processing') AND {{.O.Key}} > b.k AND {{.O.Key}} <= $2
        ORDER BY {{.O.Key}}, {{.O.Sequence}}
        LIMIT 1) nxt
), keyed AS (
    (SELECT id FROM after_cursor WHERE st = 'pending' AND due <= COALESCE($4::timestamptz, now()))
    UNION ALL
    (SELECT id FROM before_cursor WHERE st = 'pending' AND due <= COALESCE($4::timestamptz, now()))
    LIMIT $1
{{end}}), unkeyed_null AS (
    SELECT {{.O.ID}} AS id{{$ca}} FROM {{.O.Table}}
    WHERE {{.O.State}} = 'pending' AND {{.O.Key}} IS NULL
      AND {{.O.ScheduledAt}} <= COALESCE($4::timestamptz, now())
      AND {{.O.ScheduledAt}} >= COALESCE($6::timestamptz, '-infinity')
    ORDER BY {{.O.ScheduledAt}}, {{.O.Sequence}}
    LIMIT $1
    FOR UPDATE SKIP LOCKED
), unkeyed_empty AS (
    SELECT {{.O.ID}} AS id{{$ca}} FROM {{.O.Table}}
    WHERE {{.O.State}} = 'pending' AND {{.O.Key}} = ''
      AND {{.O.ScheduledAt}} <= COALESCE($4::timestamptz, now())
      AND {{.O.ScheduledAt}} >= COALESCE($6::timestamptz, '-infinity')
    ORDER BY {{.O.ScheduledAt}}, {{.O.Sequence}}
    LIMIT $1
    FOR UPDATE SKIP LOCKED
), unkeyed AS (
    (SELECT id{{$c}} FROM unkeyed_null) UNION ALL (SELECT id{{$c}} FROM unkeyed_empty)
    LIMIT $1
), candidates AS (
    {{if .KeyedFirst}}(SELECT id{{$c}} FROM keyed) UNION ALL (SELECT id{{$c}} FROM unkeyed){{else}}(SELECT id{{$c}} FROM unkeyed) UNION ALL (SELECT id{{$c}} FROM keyed){{end}}
    LIMIT $1
), locked AS (
    -- One primary key probe per candidate, whatever the statistics say;
    -- the state re-check after the lock drops a row that a concurrent
    -- claim took first.
    SELECT l.id{{if .Partitioned}}, l.ca{{end}} FROM candidates c
    CROSS JOIN LATERAL (
        SELECT {{.O.ID}} AS id{{$ca}} FROM {{.O.Table}}
        WHERE {{.O.ID}} = c.id{{if .Partitioned}} AND {{.O.CreatedAt}} = c.ca{{end}}
          AND {{.O.State}} = 'pending' AND {{.O.ScheduledAt}} <= COALESCE($4::timestamptz, now())
        FOR UPDATE SKIP LOCKED) l
)
-- The lease starts when the row is updated (clock_timestamp()), not when
-- the statement began, so the claim's own time is not taken out of it.
UPDATE {{.O.Table}} o
SET {{.O.State}} = 'processing',
    {{.O.ClaimToken}} = gen_random_uuid(),
    {{.O.ClaimedAt}} = COALESCE($4::timestamptz, clock_timestamp()),
    {{.O.LeaseExpiresAt}} = COALESCE($4::timestamptz, clock_timestamp()) + $3 * interval '1 millisecond',
    {{.O.UpdatedAt}} = COALESCE($4::timestamptz, now())
WHERE o.{{.O.ID}} = ANY (ARRAY(SELECT id FROM locked))
{{- if .Partitioned}}
  AND o.{{.O.CreatedAt}} BETWEEN (SELECT min(ca) FROM locked) AND (SELECT max(ca) FROM locked)
{{- end}}
RETURNING o.{{.O.ID}}::text, o.{{.O.Topic}}, o.{{.O.Key}}, o.{{.O.AggregateType}}, o.{{.O.Payload}}::text,
          o.{{.O.Headers}}::text, o.{{.O.Attempt}}, o.{{.O.MaxAttempts}}, o.{{.O.CreatedAt}},
          o.{{.O.Sequence}}, o.{{.O.ClaimToken}}::text,
          {{if .O.Lanes}}o.{{.O.Destination}}, o.{{.O.OriginID}}::text{{else}}''::text, NULL::text{{end}},
          o.{{.O.ScheduledAt}}
