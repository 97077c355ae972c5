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
{{- $floor := ""}}{{$busy := ""}}{{$ca := ""}}{{$c := ""}}
{{- if .Partitioned}}
{{- $floor = printf " AND %s BETWEEN (SELECT lo FROM active_floor) AND (SELECT hi FROM active_floor)" .I.CreatedAt}}
{{- $busy = printf " AND busy.%s BETWEEN (SELECT lo FROM active_floor) AND (SELECT hi FROM active_floor)" .I.CreatedAt}}
{{- $ca = printf ", %s AS ca" .I.CreatedAt}}{{$c = ", ca"}}
{{- end}}
WITH RECURSIVE requeues AS (
    SELECT {{if .Requeues}}COALESCE((SELECT requeues FROM {{.Requeues}} WHERE queue = 'inbox'), 0){{else}}NULL::bigint{{end}} AS n,
           $10::timestamptz AS lo_hint
), {{if .Partitioned}}active_floor AS (
    -- From the caller's lower bound ($10) while the requeue count is the
    -- one it was read under, as in outbox_claim.sql.
    -- Each bound is its own ordered probe with a limit: as min() and
    -- max() in one select, on a partition whose statistics saw few active
    -- rows, the planner read every active entry of the partition instead.
    -- Both start at the caller's bound: the default partition rules out
    -- reading the partitions in their order, so each probe merges them,
    -- and a partition below the bound is left out only when the probe
    -- names the bound.
    {{- $active := printf "%s IN ('pending', 'processing') AND %s > '-infinity' AND %s >= COALESCE(CASE WHEN $9::bigint = (SELECT n FROM requeues) THEN (SELECT lo_hint FROM requeues) END, '-infinity')" .I.State .I.CreatedAt .I.CreatedAt}}
    SELECT (SELECT {{.I.CreatedAt}} FROM {{.I.Table}} WHERE {{$active}}
            ORDER BY {{.I.CreatedAt}} LIMIT 1) AS lo,
           (SELECT {{.I.CreatedAt}} FROM {{.I.Table}} WHERE {{$active}}
            ORDER BY {{.I.CreatedAt}} DESC LIMIT 1) AS hi
), {{end}}
{{- $lane := printf "%s = 'push' AND %s IN ('pending', 'processing')%s" .I.Consumption .I.State $floor}}
{{- $cols := printf "%s AS agg, %s AS st, %s AS id%s, %s AS src" .I.AggregateID .I.State .I.ID $ca .I.Source}}
{{- $probe := args "I" .I "Lane" $lane "Cols" $cols}}marks AS (
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
            ((SELECT * FROM ({{template "agg_gap_probe" (args "P" $probe "From" "st.lo" "Op" ">" "Gate" "NOT st.lo_incl")}}) a)
             UNION ALL
             (SELECT * FROM ({{template "agg_gap_probe" (args "P" $probe "From" "st.lo" "Op" ">=" "Gate" "st.lo_incl")}}) b)
             LIMIT 1)
            UNION ALL
            SELECT nxt.* FROM gap g CROSS JOIN LATERAL (
                {{template "agg_gap_probe" (args "P" $probe "From" "g.agg" "Op" ">" "Gate" "TRUE")}}) nxt
         ) SELECT gap.*, NULL::timestamptz AS hc FROM gap)
        UNION ALL
        (SELECT x.*, st.hc
         FROM (SELECT 1) one CROSS JOIN LATERAL (
             SELECT {{$cols}} FROM {{.I.Table}}
             WHERE {{$lane}} AND {{.I.AggregateID}} >= st.hi AND {{.I.AggregateID}} <= st.hi
               AND {{.I.State}} <= 'pending' AND {{.I.CreatedAt}} >= st.hc
             ORDER BY {{.I.AggregateID}}, {{.I.State}}, {{.I.CreatedAt}}, {{.I.ID}}
             LIMIT 1) x
         WHERE st.hc IS NOT NULL)
    ) w
), keyed AS (
    SELECT h.id{{if .Partitioned}}, h.ca{{end}} FROM heads h
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
        SELECT 1 AS held FROM {{.I.Table}} busy
        WHERE busy.{{.I.Consumption}} = 'push' AND busy.{{.I.State}} IN ('pending', 'processing'){{$busy}}
          AND busy.{{.I.AggregateID}} >= h.agg AND busy.{{.I.AggregateID}} <= h.agg
          AND busy.{{.I.State}} >= 'processing' AND busy.{{.I.CreatedAt}} >= COALESCE(h.hc, '-infinity')
        ORDER BY busy.{{.I.AggregateID}}, busy.{{.I.State}}, busy.{{.I.CreatedAt}}, busy.{{.I.ID}}
        LIMIT 1) b ON TRUE
    WHERE h.st = 'pending' AND h.src = ANY($3::text[]) AND b.held IS NULL
    LIMIT $1
), unkeyed AS (
    SELECT {{.I.ID}} AS id{{$ca}} FROM {{.I.Table}}
    WHERE {{.I.Consumption}} = 'push' AND {{.I.State}} = 'pending' AND {{.I.AggregateID}} IS NULL
      AND {{.I.Source}} = ANY($3::text[])
      AND {{.I.CreatedAt}} >= COALESCE($6::timestamptz, '-infinity')
    ORDER BY {{.I.CreatedAt}}, {{.I.ID}}
    LIMIT $1
    FOR UPDATE SKIP LOCKED
), candidates AS (
    {{if .KeyedFirst}}(SELECT id{{$c}} FROM keyed) UNION ALL (SELECT id{{$c}} FROM unkeyed){{else}}(SELECT id{{$c}} FROM unkeyed) UNION ALL (SELECT id{{$c}} FROM keyed){{end}}
    LIMIT $1
), locked AS (
    -- One primary key probe per candidate, whatever the statistics say:
    -- the probe names the key's columns alone, and the state re-check
    -- reads the version of the row that the lock returns, so it drops a
    -- row that another claim or writer changed first. The LIMIT keeps the
    -- planner from pushing the re-check down into the probe (see
    -- outbox_claim.sql: with the state in the probe, a partition's index
    -- of pending rows could be read once per candidate).
    SELECT l.id{{if .Partitioned}}, l.ca{{end}} FROM candidates c
    CROSS JOIN LATERAL (
        SELECT {{.I.ID}} AS id{{$ca}}, {{.I.State}} AS st FROM {{.I.Table}}
        WHERE {{.I.ID}} = c.id{{if .Partitioned}} AND {{.I.CreatedAt}} = c.ca{{end}}
        LIMIT 1
        FOR UPDATE SKIP LOCKED) l
    WHERE l.st = 'pending'
)
UPDATE {{.I.Table}} i
SET {{.I.State}} = 'processing',
    {{.I.ClaimToken}} = gen_random_uuid(),
    {{.I.ClaimedAt}} = COALESCE($4::timestamptz, clock_timestamp()),
    {{.I.LeaseExpiresAt}} = COALESCE($4::timestamptz, clock_timestamp()) + $2 * interval '1 millisecond'
WHERE i.{{.I.ID}} = ANY (ARRAY(SELECT id FROM locked))
{{- if .Partitioned}}
  AND i.{{.I.CreatedAt}} BETWEEN (SELECT min(ca) FROM locked) AND (SELECT max(ca) FROM locked)
{{- end}}
RETURNING i.{{.I.ID}}::text, i.{{.I.Source}}, i.{{.I.IdempotencyKey}}, i.{{.I.AggregateID}}, i.{{.I.EventType}},
          i.{{.I.Headers}}::text, i.{{.I.CorrelationID}}, i.{{.I.CreatedAt}}, i.{{.I.ClaimToken}}::text, (SELECT n FROM requeues),
          {{if .Partitioned}}(SELECT lo FROM active_floor){{else}}NULL::timestamptz{{end}}
