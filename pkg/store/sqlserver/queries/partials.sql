-- Pieces that several statements share, written once; the twin of the
-- PostgreSQL partials.sql. A statement includes the fence as template
-- "fence_holds" with args "T" .O "A" "o" "Now" "@p6".
--
-- T-SQL points: SYSUTCDATETIME() is the clock (UTC, DATETIME2(7)); it is
-- a runtime constant, read once per statement, so every use in one
-- statement sees the same instant, like PostgreSQL's now(). Time from Go
-- (the suite's test clock) arrives in UTC and is cast to DATETIME2.
--
-- now is the clock of a lease statement: the nullable parameter it names
-- (a test clock), else the database clock. SQL Server has no
-- clock_timestamp(): the claim lock is taken by a statement of its own
-- before the claim, so the claim's statement starts after the wait and
-- its lease is not shortened by it.
{{define "now"}}COALESCE(CAST({{.}} AS DATETIME2), SYSUTCDATETIME()){{end}}
--
-- after adds Ms milliseconds (a BIGINT parameter or column) to the
-- clock of Now, and before subtracts them; Now "" is the database clock
-- alone. DATEADD takes an INT, so the seconds and the rest are added
-- apart: a lease or a retention age of weeks overflows no INT.
{{define "clock"}}{{if .}}{{template "now" .}}{{else}}SYSUTCDATETIME(){{end}}{{end}}
{{define "after"}}DATEADD(MILLISECOND, CAST({{.Ms}} % 1000 AS INT), DATEADD(SECOND, CAST({{.Ms}} / 1000 AS INT), {{template "clock" .Now}})){{end}}
{{define "before"}}DATEADD(MILLISECOND, -CAST({{.Ms}} % 1000 AS INT), DATEADD(SECOND, -CAST({{.Ms}} / 1000 AS INT), {{template "clock" .Now}})){{end}}
--
-- fence_holds is the claim fence of every write that finishes or renews
-- a claim (the spec's "claim fence") on one row joined with its d row:
-- still processing under the caller's token with a live lease. The
-- write locks the row with UPDLOCK, ROWLOCK and checks this after the
-- lock, so a row another statement changed first is left out.
{{define "fence_holds"}}{{.A}}.{{.T.State}} = 'processing' AND {{.A}}.{{.T.ClaimToken}} = d.token AND {{.A}}.{{.T.LeaseExpiresAt}} > {{template "now" .Now}}{{end}}
--
-- claim_lock takes the exclusive application lock of a claim, owned by
-- the claim's transaction (so the commit or the rollback of the claim
-- releases it, and a pooled connection never keeps it), waiting up to
-- 10 s. sp_getapplock answers a negative number when the lock was not
-- granted; THROW 51000 turns that into an error that the store tries
-- again, as it does a deadlock.
{{define "claim_lock"}}DECLARE @granted INT;
EXEC @granted = sys.sp_getapplock @Resource = {{.}}, @LockMode = 'Exclusive', @LockOwner = 'Transaction', @LockTimeout = 10000;
IF @granted < 0
    THROW 51000, N'QueueBox: the claim lock was not granted within 10 s', 1;{{end}}
--
-- replay_filter is the optional filters of the replay statements: @p1 a
-- JSON array of ids, @p2 a JSON array of topics, @p3 and @p4 the created
-- bounds (UTC); NULL skips a filter.
{{define "replay_filter"}}(@p1 IS NULL OR {{.O.ID}} IN (SELECT TRY_CAST([value] AS UNIQUEIDENTIFIER) FROM OPENJSON(@p1)))
    AND (@p2 IS NULL OR {{.O.Topic}} IN (SELECT [value] FROM OPENJSON(@p2)))
    AND (@p3 IS NULL OR {{.O.CreatedAt}} > CAST(@p3 AS DATETIME2))
    AND (@p4 IS NULL OR {{.O.CreatedAt}} < CAST(@p4 AS DATETIME2)){{end}}
--
-- wb_filter is the workbench's selection (wbsql.Data): the conditions of
-- the filter that is set, each after AND, on the unaliased table; an
-- absent filter renders nothing, so each shape gets a plan of its own.
-- The states are literals from the table's fixed set (the filtered
-- dead-row index of V13 matches them); the id and topic lists arrive as
-- JSON arrays read by OPENJSON (an empty array selects nothing), and
-- TRY_CAST keeps a malformed id from failing the statement. The error
-- text matches in any case through LOWER on both sides, whatever the
-- column's collation. Discarded rows stay hidden unless asked for. A
-- destination selects the rows routed to it by the destination column,
-- and the rows with no destination yet only when their topic is in the
-- JSON array @unrouted_topics; a message is its row and the deliveries
-- whose origin_id names it.
{{define "wb_filter"}}
    {{- if .States}} AND {{.T.State}} IN ({{template "wb_states" .States}}){{end}}
    {{- if .IDs}} AND {{.T.ID}} IN (SELECT TRY_CAST([value] AS UNIQUEIDENTIFIER) FROM OPENJSON(@ids)){{end}}
    {{- if .Topics}} AND {{.T.Topic}} IN (SELECT [value] FROM OPENJSON(@topics)){{end}}
    {{- if and .Source (not .Outbox)}} AND {{.T.Source}} = @source{{end}}
    {{- if .Key}} AND {{.T.Key}} = @key{{end}}
    {{- if and .Destination .T.Lanes}} AND ({{.T.Destination}} = @destination
        {{- if .UnroutedTopics}} OR ({{.T.Destination}} = '' AND {{.T.Topic}} IN (SELECT [value] FROM OPENJSON(@unrouted_topics))){{end}}){{end}}
    {{- if and .Destination (not .T.Lanes)}} AND {{if .UnroutedTopics}}{{.T.Topic}} IN (SELECT [value] FROM OPENJSON(@unrouted_topics)){{else}}1 = 0{{end}}{{end}}
    {{- if .Message}} AND ({{.T.ID}} = {{template "wb_id" "@message"}}{{if .T.Lanes}} OR {{.T.OriginID}} = {{template "wb_id" "@message"}}{{end}}){{end}}
    {{- if .Error}} AND CHARINDEX(LOWER(@error), LOWER({{.T.LastError}})) > 0{{end}}
    {{- if .After}} AND {{.T.CreatedAt}} > CAST(@created_after AS DATETIME2){{end}}
    {{- if .Before}} AND {{.T.CreatedAt}} < CAST(@created_before AS DATETIME2){{end}}
    {{- if not .WithDiscarded}} AND {{.T.DiscardedAt}} IS NULL{{end}}
{{- end}}
--
-- wb_states renders a list of state literals for IN (...).
{{define "wb_states"}}{{range $i, $s := .}}{{if $i}}, {{end}}'{{$s}}'{{end}}{{end}}
--
-- wb_pending is the SET list that moves a row back to pending, due now,
-- with its attempts, error, claim and discard mark cleared; a move of one
-- destination's rows also gives them that destination, so a row that had
-- none goes there alone instead of fanning out again.
{{define "wb_pending"}}{{.T.State}} = 'pending',
    {{.T.Attempt}} = 0,
    {{.T.ScheduledAt}} = SYSUTCDATETIME(),
    {{.T.LastError}} = NULL,
    {{.T.ClaimedAt}} = NULL,
    {{.T.ClaimToken}} = NULL,
    {{.T.LeaseExpiresAt}} = NULL,
    {{.T.DiscardedAt}} = NULL,
    {{if .Outbox}}{{.T.UpdatedAt}} = SYSUTCDATETIME(){{else}}{{.T.ProcessedAt}} = NULL{{end}}
    {{- if and .Destination .T.Lanes}},
    {{.T.Destination}} = @destination{{end}}{{end}}
--
-- wb_id reads an id parameter as a UNIQUEIDENTIFIER, NULL when it is not
-- one, so a malformed id finds no row instead of failing.
{{define "wb_id"}}TRY_CAST({{.}} AS UNIQUEIDENTIFIER){{end}}
--
-- wb_job_columns are the columns of a replay job as the store scans them,
-- after the prefix given ("", an alias and a dot, or "inserted.").
{{define "wb_job_columns"}}LOWER(CONVERT(NVARCHAR(36), {{.}}id)), {{.}}table_name, {{.}}filter, {{.}}matched, {{.}}moved, {{.}}done, {{.}}error, {{.}}created_at, {{.}}finished_at{{end}}
