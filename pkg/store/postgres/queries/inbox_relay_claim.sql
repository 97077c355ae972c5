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
{{- $floor := ""}}{{$busy := ""}}{{$ca := ""}}{{$c := ""}}
{{- if .Partitioned}}
{{- $floor = printf " AND %s BETWEEN (SELECT lo FROM active_floor) AND (SELECT hi FROM active_floor)" .I.CreatedAt}}
{{- $busy = printf " AND busy.%s BETWEEN (SELECT lo FROM active_floor) AND (SELECT hi FROM active_floor)" .I.CreatedAt}}
{{- $ca = printf ", %s AS ca" .I.CreatedAt}}{{$c = ", ca"}}
{{- end}}
WITH RECURSIVE {{if .Partitioned}}active_floor AS (
    SELECT min({{.I.CreatedAt}}) AS lo, max({{.I.CreatedAt}}) AS hi FROM {{.I.Table}}
    WHERE {{.I.State}} IN ('pending', 'processing') AND {{.I.CreatedAt}} > '-infinity'
), {{end}}after_cursor AS (
    (SELECT {{.I.AggregateID}} AS agg, {{.I.State}} AS st, {{.I.ID}} AS id{{$ca}}, {{.I.Source}} AS src
     FROM {{.I.Table}}
     WHERE {{.I.Consumption}} = 'push' AND {{.I.State}} IN ('pending', 'processing') AND {{.I.AggregateID}} > $5{{$floor}}
     ORDER BY {{.I.AggregateID}}, {{.I.State}}, {{.I.CreatedAt}}, {{.I.ID}}
     LIMIT 1)
    UNION ALL
    SELECT nxt.agg, nxt.st, nxt.id{{if .Partitioned}}, nxt.ca{{end}}, nxt.src
    FROM after_cursor a
    CROSS JOIN LATERAL (
        SELECT {{.I.AggregateID}} AS agg, {{.I.State}} AS st, {{.I.ID}} AS id{{$ca}}, {{.I.Source}} AS src
        FROM {{.I.Table}}
        WHERE {{.I.Consumption}} = 'push' AND {{.I.State}} IN ('pending', 'processing') AND {{.I.AggregateID}} > a.agg{{$floor}}
        ORDER BY {{.I.AggregateID}}, {{.I.State}}, {{.I.CreatedAt}}, {{.I.ID}}
        LIMIT 1) nxt
), before_cursor AS (
    (SELECT {{.I.AggregateID}} AS agg, {{.I.State}} AS st, {{.I.ID}} AS id{{$ca}}, {{.I.Source}} AS src
     FROM {{.I.Table}}
     WHERE {{.I.Consumption}} = 'push' AND {{.I.State}} IN ('pending', 'processing')
       AND {{.I.AggregateID}} IS NOT NULL AND {{.I.AggregateID}} <= $5{{$floor}}
     ORDER BY {{.I.AggregateID}}, {{.I.State}}, {{.I.CreatedAt}}, {{.I.ID}}
     LIMIT 1)
    UNION ALL
    SELECT nxt.agg, nxt.st, nxt.id{{if .Partitioned}}, nxt.ca{{end}}, nxt.src
    FROM before_cursor b
    CROSS JOIN LATERAL (
        SELECT {{.I.AggregateID}} AS agg, {{.I.State}} AS st, {{.I.ID}} AS id{{$ca}}, {{.I.Source}} AS src
        FROM {{.I.Table}}
        WHERE {{.I.Consumption}} = 'push' AND {{.I.State}} IN ('pending', 'processing')
          AND {{.I.AggregateID}} > b.agg AND {{.I.AggregateID}} <= $5{{$floor}}
        ORDER BY {{.I.AggregateID}}, {{.I.State}}, {{.I.CreatedAt}}, {{.I.ID}}
        LIMIT 1) nxt
), heads AS (
    (SELECT * FROM after_cursor) UNION ALL (SELECT * FROM before_cursor)
), keyed AS (
    SELECT h.id{{if .Partitioned}}, h.ca{{end}} FROM heads h
    WHERE h.st = 'pending'
      AND h.src = ANY($3::text[])
      -- The order makes idx_inbox_push_heads the cheapest path: one probe
      -- of the aggregate's processing entries.
      AND NOT EXISTS (
          SELECT 1 FROM {{.I.Table}} busy
          WHERE busy.{{.I.Consumption}} = 'push' AND busy.{{.I.State}} IN ('pending', 'processing')
            AND busy.{{.I.AggregateID}} = h.agg AND busy.{{.I.State}} = 'processing'{{$busy}}
          ORDER BY busy.{{.I.AggregateID}}, busy.{{.I.State}}, busy.{{.I.CreatedAt}}, busy.{{.I.ID}}
          LIMIT 1)
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
    -- One primary key probe per candidate, whatever the statistics say;
    -- the state re-check after the lock drops a row that another claim or
    -- writer changed first.
    SELECT l.id{{if .Partitioned}}, l.ca{{end}} FROM candidates c
    CROSS JOIN LATERAL (
        SELECT {{.I.ID}} AS id{{$ca}} FROM {{.I.Table}}
        WHERE {{.I.ID}} = c.id{{if .Partitioned}} AND {{.I.CreatedAt}} = c.ca{{end}} AND {{.I.State}} = 'pending'
        FOR UPDATE SKIP LOCKED) l
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
          i.{{.I.Headers}}::text, i.{{.I.CorrelationID}}, i.{{.I.CreatedAt}}, i.{{.I.ClaimToken}}::text
