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
{{define "fence_holds"}}{{.A}}.{{.T.State}} = 'processing' AND {{.A}}.{{.T.ClaimToken}} = d.token AND {{.A}}.{{.T.LeaseExpiresAt}} > {{template "now" .Now}}{{end}}
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
    {{- if and .Destination .T.Lanes}} AND ({{.T.Destination}} = @destination
        {{- if .UnroutedTopics}} OR ({{.T.Destination}} = '' AND {{.T.Topic}} = ANY(@unrouted_topics::text[])){{end}}){{end}}
    {{- if and .Destination (not .T.Lanes)}} AND {{if .UnroutedTopics}}{{.T.Topic}} = ANY(@unrouted_topics::text[]){{else}}1 = 0{{end}}{{end}}
    {{- if .Message}} AND ({{.T.ID}} = @message::uuid{{if .T.Lanes}} OR {{.T.OriginID}} = @message::uuid{{end}}){{end}}
    {{- if .Error}} AND strpos(lower({{.T.LastError}}), lower(@error)) > 0{{end}}
    {{- if .After}} AND {{.T.CreatedAt}} > @created_after{{end}}
    {{- if .Before}} AND {{.T.CreatedAt}} < @created_before{{end}}
    {{- if not .WithDiscarded}} AND {{.T.DiscardedAt}} IS NULL{{end}}
{{- end}}
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
