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
-- the nullable clock (the "now" partial of partials.sql, written out):
-- NULL reads the database clock.
-- $6 is the lower bound of the unkeyed scans (scheduled_at), NULL for
-- none: under a transaction older than the rows claimed since, their
-- index entries cannot be removed, and a scan from the start steps over
-- all of them (see package scanfloor, which keeps the bound and runs an
-- unbounded scan often enough that no row below it is left behind).
-- Each row returns its scheduled_at, for that bound, then the requeue
-- count and the lowest created_at of an active row (both below).
-- $7, $8 and $9 are the caller's hints (package lanehint), as columns:
-- the key, the destination and the sequence of the last head it claimed
-- in a lane, and $10 the requeue count they were taken under. A lane's
-- head is at or after its hint, so the walk probes a hinted lane from
-- there, never past the entries of the rows it delivered before (an old
-- transaction keeps those in the index, and a probe from the lane's
-- start would step over each). The walk goes in steps (see steps): the
-- gap before each hinted lane is walked one probe per lane as before, so
-- an unhinted lane is found, then the hinted lane is probed. Before each
-- hinted key's lanes sits a mark for its rows without a destination, so
-- no probe reads them: the walk takes no row without a destination, and
-- skips them in the index, without a heap visit, on destination > ''.
-- The hints hold while no row went back to pending below one, which
-- every move back to pending of QueueBox counts in the requeue counts
-- table (the "requeued" partial); with another count than $10, or none,
-- the walk uses no hint. The count read is returned with each row.
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
-- could see. Under an old transaction the probe of the lowest would
-- step over the entries of every row that left the index since, in each
-- partition, so it starts at $11, a little below the lowest a claim
-- returned, whenever the requeue count is the one $11 was read under
-- ($10), the walks without lane hints included; $11 NULL reads from the
-- start. (The index's condition on created_at keeps it out of the
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
WITH RECURSIVE requeues AS (
    SELECT {{if .Requeues}}COALESCE((SELECT requeues FROM {{.Requeues}} WHERE queue = 'outbox'), 0){{else}}NULL::bigint{{end}} AS n,
           $11::timestamptz AS lo_hint
), {{if .Partitioned}}active_floor AS (
    -- From the caller's lower bound ($11) when the requeue count is still
    -- the one it was read under: no row older than the oldest active row
    -- a claim saw becomes active but by a counted move (or a late commit,
    -- which the claimer's active check finds: outbox_oldest_active.sql
    -- lowers the bound), and the probe then
    -- starts past the entries an old transaction keeps below it.
    -- Each bound is its own ordered probe with a limit: as min() and
    -- max() in one select, on a partition whose statistics saw few active
    -- rows, the planner read every active entry of the partition instead.
    -- Both start at the caller's bound: the default partition rules out
    -- reading the partitions in their order, so each probe merges them,
    -- and a partition below the bound is left out only when the probe
    -- names the bound.
    {{- $active := printf "%s IN ('pending', 'processing') AND %s > '-infinity' AND %s >= COALESCE(CASE WHEN $10::bigint = (SELECT n FROM requeues) THEN (SELECT lo_hint FROM requeues) END, '-infinity')" .O.State .O.CreatedAt .O.CreatedAt}}
    SELECT (SELECT {{.O.CreatedAt}} FROM {{.O.Table}} WHERE {{$active}}
            ORDER BY {{.O.CreatedAt}} LIMIT 1) AS lo,
           (SELECT {{.O.CreatedAt}} FROM {{.O.Table}} WHERE {{$active}}
            ORDER BY {{.O.CreatedAt}} DESC LIMIT 1) AS hi
), {{end}}{{if .O.Lanes}}
{{- $lane := printf "%s IN ('pending', 'processing') AND %s > '' AND %s > ''%s" .O.State .O.Key .O.Destination $floor}}
{{- $cols := printf "%s AS k, %s AS d, %s AS id%s, %s AS st, %s AS due, %s AS seq" .O.Key .O.Destination .O.ID $ca .O.State .O.ScheduledAt .O.Sequence}}
{{- $kd := printf "(%s, %s)" .O.Key .O.Destination}}
{{- $probe := args "O" .O "Lane" $lane "Cols" $cols "KD" $kd}}hinted AS (
    -- The caller's hints, kept only when no move back to pending has been
    -- counted since they were taken.
    SELECT h.k, h.d, h.s FROM unnest($7::text[], $8::text[], $9::bigint[]) AS h(k, d, s)
    WHERE $10::bigint = (SELECT n FROM requeues)
), marks AS (
    -- The hinted lanes, and before each hinted key's lanes the place of
    -- its rows without a destination ((k, ''), s NULL: a bound that no
    -- probe reads), in the index's order, which the database's collation
    -- decides, each with the mark before it.
    SELECT b.k, b.d, b.s, lag(b.k) OVER o AS pk, lag(b.d) OVER o AS pd
    FROM (SELECT k, d, s FROM hinted UNION SELECT k, '', NULL::bigint FROM hinted) b
    WINDOW o AS (ORDER BY b.k, b.d)
), steps AS (
    -- The walk in steps, from the cursor ($2, $5) to the end of the index
    -- (parts 0 and 1), then from its start to the cursor (2 and 3): each
    -- step walks the lanes in a gap between two marks (lo, hi), or past
    -- the last mark of its part (hi NULL, or the cursor included), then
    -- probes its mark's lane from the hint.
    SELECT 0 AS part, m.k AS ok, m.d AS od,
           CASE WHEN (m.pk, m.pd) > ($2, $5) THEN m.pk ELSE $2 END AS lo_k,
           CASE WHEN (m.pk, m.pd) > ($2, $5) THEN m.pd ELSE $5 END AS lo_d,
           m.k AS hi_k, m.d AS hi_d, FALSE AS incl, m.s AS hs
    FROM marks m WHERE (m.k, m.d) > ($2, $5)
    UNION ALL
    SELECT 1, NULL, NULL, COALESCE(t.k, $2), COALESCE(t.d, $5), NULL, NULL, FALSE, NULL
    FROM (SELECT 1) one LEFT JOIN (
        SELECT k, d FROM marks WHERE (k, d) > ($2, $5) ORDER BY k DESC, d DESC LIMIT 1) t ON TRUE
    UNION ALL
    SELECT 2, m.k, m.d, COALESCE(m.pk, ''), COALESCE(m.pd, ''), m.k, m.d, FALSE, m.s
    FROM marks m WHERE (m.k, m.d) <= ($2, $5)
    UNION ALL
    SELECT 3, NULL, NULL, COALESCE(t.k, ''), COALESCE(t.d, ''), $2, $5, TRUE, NULL
    FROM (SELECT 1) one LEFT JOIN (
        SELECT k, d FROM marks WHERE (k, d) <= ($2, $5) ORDER BY k DESC, d DESC LIMIT 1) t ON TRUE
), heads AS (
    -- Each step's gap one probe per lane (from a lane's first entry, as
    -- no hint is known for it), then its mark's lane from the hint.
    SELECT w.* FROM (SELECT * FROM steps ORDER BY part, ok, od) st
    CROSS JOIN LATERAL (
        (WITH RECURSIVE gap AS (
            ({{template "lane_gap_probe" (args "P" $probe "From" "(st.lo_k, st.lo_d)" "FK" "st.lo_k" "FD" "st.lo_d")}})
            UNION ALL
            SELECT nxt.* FROM gap g CROSS JOIN LATERAL (
                {{template "lane_gap_probe" (args "P" $probe "From" "(g.k, g.d)" "FK" "g.k" "FD" "g.d")}}) nxt
         ) SELECT gap.*, NULL::bigint AS hs FROM gap)
        UNION ALL
        (SELECT st.hi_k, st.hi_d, x.id{{if .Partitioned}}, x.ca{{end}}, x.st, x.due, x.seq, st.hs
         FROM (SELECT 1) one CROSS JOIN LATERAL (
             SELECT {{$cols}} FROM {{.O.Table}}
             WHERE {{$lane}}
               AND {{.O.Key}} = st.hi_k AND {{.O.Destination}} = st.hi_d AND {{.O.Sequence}} >= st.hs
             ORDER BY {{.O.Key}}, {{.O.Destination}}, {{.O.Sequence}}
             LIMIT 1) x
         WHERE st.hs IS NOT NULL)
    ) w
), keyed AS (
    -- A routed lane's head is due and no row of its key waits for its
    -- destination with a lower sequence (one probe of the unrouted lane,
    -- from the lane's hint when it has one).
    -- (A lateral probe with a limit runs once per head; NOT EXISTS let
    -- the planner read every unrouted entry once instead, the ones an old
    -- transaction keeps included.)
    SELECT h.id{{if .Partitioned}}, h.ca{{end}} FROM heads h
    LEFT JOIN LATERAL (
        SELECT 1 AS held FROM {{.O.Table}} u
        WHERE u.{{.O.State}} IN ('pending', 'processing') AND u.{{.O.Key}} > ''{{$ufloor}}
          AND u.{{.O.Key}} = h.k AND u.{{.O.Destination}} = '' AND u.{{.O.Sequence}} < h.seq
          AND u.{{.O.Sequence}} >= COALESCE(h.hs, -9223372036854775808)
        ORDER BY u.{{.O.Key}}, u.{{.O.Destination}}, u.{{.O.Sequence}}
        LIMIT 1) u ON TRUE
    WHERE h.st = 'pending' AND h.due <= COALESCE($4::timestamptz, now()) AND u.held IS NULL
    LIMIT $1
{{else}}unused AS (SELECT $5::text, $7::text[], $8::text[], $9::bigint[], $10::bigint), after_cursor AS (
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
    -- One primary key probe per candidate, whatever the statistics say:
    -- the probe names the key's columns alone, and the state re-check
    -- reads the version of the row that the lock returns, so it drops a
    -- row that a concurrent claim took first. The LIMIT keeps the planner
    -- from pushing the re-check down into the probe. (With the state and
    -- the due time in the probe, it chose the index of due pending rows
    -- on a partition whose statistics saw few of them, and read every due
    -- row of a backlog once per candidate: seconds per claim.)
    SELECT l.id{{if .Partitioned}}, l.ca{{end}} FROM candidates c
    CROSS JOIN LATERAL (
        SELECT {{.O.ID}} AS id{{$ca}}, {{.O.State}} AS st, {{.O.ScheduledAt}} AS due FROM {{.O.Table}}
        WHERE {{.O.ID}} = c.id{{if .Partitioned}} AND {{.O.CreatedAt}} = c.ca{{end}}
        LIMIT 1
        FOR UPDATE SKIP LOCKED) l
    WHERE l.st = 'pending' AND l.due <= COALESCE($4::timestamptz, now())
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
          o.{{.O.ScheduledAt}}, (SELECT n FROM requeues),
          {{if .Partitioned}}(SELECT lo FROM active_floor){{else}}NULL::timestamptz{{end}}
