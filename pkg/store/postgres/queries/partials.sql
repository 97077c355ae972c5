-- Pieces that several statements share, written once. A statement
-- includes the fence as template "fence" with args "T" .O "A" "o" "Now"
-- "$6": T is the table's columns (.O or .I), A the alias the statement
-- gives the table, Now the statement's clock parameter.
--
-- now is the clock of a lease statement: the nullable parameter it names
-- (a test clock), else the database clock. now() is the transaction's
-- start time and the parameter is bound once, so every use in one
-- statement sees the same instant. With NULL bound, the planner folds the
-- expression to now() in a custom plan; a generic plan evaluates it once
-- per scan, as it does now().
{{define "now"}}COALESCE({{.}}::timestamptz, now()){{end}}
--
-- lease_start is where a new or renewed lease starts: the test clock, else
-- the moment the row is written (clock_timestamp()), not the start of the
-- transaction, so a statement that waited for a lock hands out the whole
-- lease and never one that has already run out.
{{define "lease_start"}}COALESCE({{.}}::timestamptz, clock_timestamp()){{end}}
--
-- fence is the claim fence of every write that finishes or renews a claim
-- (the spec's "claim fence"): the rows of d (one per lease: id, token,
-- and the values of the write) that are still processing under the
-- caller's token with a live lease, locked in id order. Every fenced
-- write locks its rows first and in this one order: the writer and the
-- renewal of one replica run on two connections over shared rows at once,
-- and two statements that lock shared rows in different orders deadlock.
{{define "fence"}}SELECT {{.A}}.{{.T.ID}} AS id
    FROM {{.T.Table}} {{.A}}
    JOIN d ON {{.A}}.{{.T.ID}} = d.id
    WHERE {{template "fence_holds" .}}
    ORDER BY {{.A}}.{{.T.ID}}
    FOR UPDATE OF {{.A}}{{end}}

-- fence_holds is the fence's condition on one row joined with its d row.
-- The write repeats it after the lock: PostgreSQL re-reads a row that
-- changed since the statement's snapshot and checks the condition again.
-- The state is compared through COALESCE (the column is NOT NULL, so it
-- means the same) to keep the planner from reading the rows through the
-- partial index of processing rows: a plain state = 'processing' lets it
-- scan that whole index once per row written, which it takes for small
-- when its statistics are from a quiet moment. With an old transaction
-- open, that index holds a dead entry for every row claimed since, which
-- vacuum may not remove: outcome writes then took seconds each and
-- delivery fell to tens of rows a second. The id finds each row through
-- the primary key instead.
{{define "fence_holds"}}COALESCE({{.A}}.{{.T.State}}, '') = 'processing' AND {{.A}}.{{.T.ClaimToken}} = d.token AND {{.A}}.{{.T.LeaseExpiresAt}} > {{template "now" .Now}}{{end}}
--
-- wb_filter is the workbench's selection (wbsql.Data): the conditions of
-- the filter that is set, each after AND, on the unaliased table. Absent
-- filters render nothing. Discarded rows stay hidden unless asked for.
-- A destination selects the rows routed to it by the destination column;
-- the rows with no destination yet count only when their topic is one of
-- @unrouted_topics, the topics the caller's routes send there. A message
-- is its row and the deliveries whose origin_id names it. An outbox
-- without the lane columns has no destination and no deliveries: a
-- destination selects the rows of the topics routed there.
{{define "wb_filter"}}
    {{- if .States}} AND {{.T.State}} IN ({{range $i, $s := .States}}{{if $i}}, {{end}}'{{$s}}'{{end}}){{end}}
    {{- if .IDs}} AND {{.T.ID}} = ANY(@ids::uuid[]){{end}}
    {{- if .Topics}} AND {{.T.Topic}} = ANY(@topics::text[]){{end}}
    {{- if and .Source (not .Outbox)}} AND {{.T.Source}} = @source{{end}}
    {{- if .Key}} AND {{.T.Key}} = @key{{end}}
    {{- if .Backfill}}{{template "wb_missing" .}}{{end}}
    {{- if and .Destination .T.Lanes (not .Backfill)}} AND ({{.T.Destination}} = @destination
        {{- if .UnroutedTopics}} OR ({{.T.Destination}} = '' AND {{.T.Topic}} = ANY(@unrouted_topics::text[])){{end}}){{end}}
    {{- if and .Destination (not .T.Lanes)}} AND {{if .UnroutedTopics}}{{.T.Topic}} = ANY(@unrouted_topics::text[]){{else}}1 = 0{{end}}{{end}}
    {{- if .Message}} AND ({{.T.ID}} = @message::uuid{{if .T.Lanes}} OR {{.T.OriginID}} = @message::uuid{{end}}){{end}}
    {{- if .Error}} AND strpos(lower({{.T.LastError}}), lower(@error)) > 0{{end}}
    {{- if .After}} AND {{.T.CreatedAt}} > @created_after{{end}}
    {{- if .Before}} AND {{.T.CreatedAt}} < @created_before{{end}}
    {{- if not .WithDiscarded}} AND {{.T.DiscardedAt}} IS NULL{{end}}
{{- end}}
--
-- wb_missing is the selection of a backfill (wbsql.Data.Backfill): the
-- messages that have no delivery to @destination. A message is a row the
-- application wrote (origin_id NULL) that was routed to another
-- destination: a row without one is a delivery to @destination by its
-- topic, and a move pins it there instead. Its topic is one that the
-- caller's routes send to @destination now (@unrouted_topics; none
-- selects nothing), and no row added for it goes there. The outer table
-- is unaliased, so the subquery names it by its table name.
{{define "wb_missing"}} AND {{.T.OriginID}} IS NULL AND {{.T.Destination}} NOT IN ('', @destination)
    {{- if .UnroutedTopics}} AND {{.T.Topic}} = ANY(@unrouted_topics::text[]){{else}} AND 1 = 0{{end}}
    AND NOT EXISTS (SELECT 1 FROM {{.T.Table}} wb_d
        WHERE wb_d.{{.T.OriginID}} = {{.T.Table}}.{{.T.ID}} AND wb_d.{{.T.Destination}} = @destination){{end}}
--
-- wb_add_columns and wb_add_values are the column list and the SELECT
-- list (over the message row, aliased m) of a delivery that a backfill
-- adds to @destination: a copy like the deliveries of a fan-out
-- (outbox_assign.sql), with the message's key, sequence (so it takes the
-- message's place in its lane), topic, payload, headers, aggregate type,
-- max_attempts and created_at, pending and due now with attempt 0, and
-- origin_id naming the message.
{{define "wb_add_columns"}}{{.O.ID}}, {{.O.Topic}}, {{.O.Key}}, {{.O.AggregateType}}, {{.O.Payload}},
    {{.O.Headers}}, {{.O.State}}, {{.O.Attempt}}, {{.O.MaxAttempts}}, {{.O.ScheduledAt}}, {{.O.CreatedAt}},
    {{.O.UpdatedAt}}, {{.O.Sequence}}, {{.O.Destination}}, {{.O.OriginID}}{{end}}
{{define "wb_add_values"}}gen_random_uuid(), m.{{.O.Topic}}, m.{{.O.Key}}, m.{{.O.AggregateType}}, m.{{.O.Payload}},
    m.{{.O.Headers}}, 'pending', 0, m.{{.O.MaxAttempts}}, now(), m.{{.O.CreatedAt}},
    now(), m.{{.O.Sequence}}, @destination, m.{{.O.ID}}{{end}}
--
-- wb_pending is the SET list that moves a row back to pending, due now,
-- with its attempts, error, claim and discard mark cleared. A move that
-- selects one destination's rows also gives them that destination: the
-- rows that had it keep it, and a row that had none goes there alone
-- instead of fanning out to the route's other destinations again.
{{define "wb_pending"}}{{.T.State}} = 'pending',
    {{.T.Attempt}} = 0,
    {{.T.ScheduledAt}} = now(),
    {{.T.LastError}} = NULL,
    {{.T.ClaimedAt}} = NULL,
    {{.T.ClaimToken}} = NULL,
    {{.T.LeaseExpiresAt}} = NULL,
    {{.T.DiscardedAt}} = NULL,
    {{if .Outbox}}{{.T.UpdatedAt}} = now(){{else}}{{.T.ProcessedAt}} = NULL{{end}}
    {{- if and .Destination .T.Lanes}},
    {{.T.Destination}} = @destination{{end}}{{end}}
--
-- wb_job_columns are the columns of a replay job as the store scans them,
-- after the prefix given ("" or an alias and a dot).
{{define "wb_job_columns"}}{{.}}id::text, {{.}}table_name, {{.}}filter::text, {{.}}matched, {{.}}moved, {{.}}done, {{.}}error, {{.}}created_at, {{.}}finished_at{{end}}
--
-- requeued counts, in the statement's transaction, a statement that may
-- move rows of the queue named Queue ('outbox' or 'inbox') back to
-- pending, in the requeue counts table Table (V18; empty: the database
-- has none, and nothing is counted). The claims keep a hint per lane (or
-- aggregate) that such a move can make wrong, and they read the count
-- in their own snapshot to know when to drop their hints (see
-- outbox_claim.sql). A statement includes it as its first CTE, when
-- .Requeues is set, and reads it (template "after_requeued") in the CTE that selects the
-- rows, so the count's row is locked before any queue row: two moves
-- wait for each other on it and never deadlock over the rows.
{{define "requeued"}}{{if .Table}}requeued AS (
    INSERT INTO {{.Table}} AS rq (queue, requeues) VALUES ('{{.Queue}}', 1)
    ON CONFLICT (queue) DO UPDATE SET requeues = rq.requeues + 1
    RETURNING 1 AS one){{end}}{{end}}
{{define "after_requeued"}}{{if .}} AND EXISTS (SELECT 1 FROM requeued){{end}}{{end}}
--
-- lane_gap_probe is one step of outbox_claim.sql's walk of the lanes in a
-- gap between two marks: the first entry of the next lane after From
-- (a row value of key and destination) that is still below the step's
-- hi (st.hi_k, st.hi_d; included when st.incl; no bound when st.hi_k is
-- NULL). The bound is split by key: the keys before hi_k, then hi_k's
-- destinations up to hi_d. Written as one row comparison, it let the
-- index stop at a greater key only: PostgreSQL 15 ends a btree scan on
-- the first column of a row comparison alone, so a probe below (k, d)
-- read every entry of k's lanes from d on, each lane's whole backlog (a
-- probe of the gap before a hinted lane read that lane's 20,000 pending
-- rows, and ten such lanes made a claim take 60 ms). Each part is one
-- ordered probe with a limit, its end a bound on a column after the
-- equal ones, which the index stops at; a part whose condition on the
-- step fails reads no page. The parts within hi_k start the same way: a
-- bound on the destination after From's when From is of hi_k too (FK and
-- FD, From's key and destination). The row comparison alone let the scan
-- start at hi_k's first lane, so the probe after a lane of hi_k read
-- that lane's whole backlog: the last step of every walk, from the mark
-- of the cursor's lane to the cursor, read the cursor's lane, and with a
-- fan-out each lane but the last of a key was read once more per claim.
-- P holds the statement's pieces: O the outbox columns, Lane the walked
-- rows' condition, Cols the columns, KD the row value (key, destination).
{{define "lane_gap_probe"}}{{$o := .P.O}}(SELECT {{.P.Cols}} FROM {{$o.Table}}
         WHERE st.hi_k IS NOT NULL AND {{.P.Lane}}
           AND {{.P.KD}} > {{.From}} AND {{$o.Key}} < st.hi_k
         ORDER BY {{$o.Key}}, {{$o.Destination}}, {{$o.Sequence}}
         LIMIT 1)
        UNION ALL
        (SELECT {{.P.Cols}} FROM {{$o.Table}}
         WHERE st.hi_k IS NOT NULL AND NOT st.incl AND {{.P.Lane}}
           AND {{.P.KD}} > {{.From}} AND {{$o.Key}} = st.hi_k AND {{$o.Destination}} < st.hi_d
           AND {{$o.Destination}} > CASE WHEN {{.FK}} = st.hi_k THEN {{.FD}} ELSE '' END
         ORDER BY {{$o.Key}}, {{$o.Destination}}, {{$o.Sequence}}
         LIMIT 1)
        UNION ALL
        (SELECT {{.P.Cols}} FROM {{$o.Table}}
         WHERE st.incl AND {{.P.Lane}}
           AND {{.P.KD}} > {{.From}} AND {{$o.Key}} = st.hi_k AND {{$o.Destination}} <= st.hi_d
           AND {{$o.Destination}} > CASE WHEN {{.FK}} = st.hi_k THEN {{.FD}} ELSE '' END
         ORDER BY {{$o.Key}}, {{$o.Destination}}, {{$o.Sequence}}
         LIMIT 1)
        UNION ALL
        (SELECT {{.P.Cols}} FROM {{$o.Table}}
         WHERE st.hi_k IS NULL AND {{.P.Lane}}
           AND {{.P.KD}} > {{.From}}
         ORDER BY {{$o.Key}}, {{$o.Destination}}, {{$o.Sequence}}
         LIMIT 1)
        LIMIT 1{{end}}
--
-- agg_gap_probe is lane_gap_probe for inbox_relay_claim.sql's walk of the
-- aggregates: the first entry of the next aggregate after From (Op ">",
-- or ">=" from the start of the index) below the step's hi, when Gate
-- holds. P holds I, the inbox columns, Lane and Cols.
{{define "agg_gap_probe"}}{{$i := .P.I}}(SELECT {{.P.Cols}} FROM {{$i.Table}}
         WHERE {{.Gate}} AND st.hi IS NOT NULL AND NOT st.incl AND {{.P.Lane}}
           AND {{$i.AggregateID}} {{.Op}} {{.From}} AND {{$i.AggregateID}} < st.hi
         ORDER BY {{$i.AggregateID}}, {{$i.State}}, {{$i.CreatedAt}}, {{$i.ID}}
         LIMIT 1)
        UNION ALL
        (SELECT {{.P.Cols}} FROM {{$i.Table}}
         WHERE {{.Gate}} AND st.incl AND {{.P.Lane}}
           AND {{$i.AggregateID}} {{.Op}} {{.From}} AND {{$i.AggregateID}} <= st.hi
         ORDER BY {{$i.AggregateID}}, {{$i.State}}, {{$i.CreatedAt}}, {{$i.ID}}
         LIMIT 1)
        UNION ALL
        (SELECT {{.P.Cols}} FROM {{$i.Table}}
         WHERE {{.Gate}} AND st.hi IS NULL AND {{.P.Lane}}
           AND {{$i.AggregateID}} {{.Op}} {{.From}}
         ORDER BY {{$i.AggregateID}}, {{$i.State}}, {{$i.CreatedAt}}, {{$i.ID}}
         LIMIT 1)
        LIMIT 1{{end}}
