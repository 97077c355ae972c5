-- Writes the outcomes of many claimed rows in one statement; the twin of
-- the PostgreSQL outbox_finish.sql. Each row is fenced (partials.sql) on
-- its id, the processing state, its claim token and a live lease; a row
-- missing from OUTPUT lost its claim and keeps the new owner's state.
-- outcome: sent, retry (back to pending after delay_ms; an absent delay_ms is 0), defer
-- (back to pending after delay_ms with attempt and last_error as they
-- were: the destination could not take the row) or dead. dest records
-- the destination of a row that was routed at its claim (one without a
-- key); a row that has one keeps it, and an absent dest records ''.
--
-- T-SQL points: the outcomes arrive as one JSON array (@p1) read by
-- OPENJSON ... WITH, since T-SQL has no array parameters; UPDATE ... FROM
-- with WITH (UPDLOCK, ROWLOCK) on the fenced rows; OUTPUT inserted.id
-- instead of RETURNING; DATETIME2 math through DATEADD. Two fenced
-- writes that lock shared rows in different orders can deadlock here,
-- unlike the id-ordered locks of PostgreSQL: the loser (error 1205) was
-- rolled back whole, and the store runs it again. @p2 is the nullable
-- clock.
--
-- With the delivery ledger written (Ledger.Write), a first OUTPUT clause
-- inserts one attempt for each row the UPDATE changed, the rows whose
-- fence held and no other, INTO the ledger's table in the same statement
-- (OUTPUT ... INTO allows a second, plain OUTPUT after it, which still
-- answers the ids). Each element then also carries the attempt's facts:
-- attempt, started_at (UTC; absent takes the clock of @p2), duration_ms,
-- class, status and answer (absent stores NULL). The row gives the
-- message id (its origin's for a fan-out delivery) and the destination it
-- now has. Without the ledger the statement is the one of before.
WITH d AS (
    SELECT id, token, outcome, delay_ms, error, dest{{if .Ledger.Write}}, attempt, started_at, duration_ms, class, status, answer{{end}}
    FROM OPENJSON(@p1) WITH (id UNIQUEIDENTIFIER '$.id', token UNIQUEIDENTIFIER '$.token',
        outcome NVARCHAR(10) '$.outcome', delay_ms BIGINT '$.delay_ms', error NVARCHAR(MAX) '$.error',
        dest NVARCHAR(200) '$.dest'{{if .Ledger.Write}}, attempt INT '$.attempt', started_at DATETIME2 '$.started_at',
        duration_ms INT '$.duration_ms', class NVARCHAR(32) '$.class', status NVARCHAR(64) '$.status',
        answer NVARCHAR(1024) '$.answer'{{end}})
)
UPDATE o
SET {{.O.State}} = CASE WHEN d.outcome IN ('retry', 'defer') THEN 'pending' ELSE d.outcome END,
    {{.O.Attempt}} = CASE d.outcome WHEN 'retry' THEN o.{{.O.Attempt}} + 1 ELSE o.{{.O.Attempt}} END,
    {{.O.ScheduledAt}} = CASE WHEN d.outcome IN ('retry', 'defer') THEN {{template "after" args "Ms" "COALESCE(d.delay_ms, 0)" "Now" "@p2"}}
                         ELSE o.{{.O.ScheduledAt}} END,
    {{.O.LastError}} = CASE WHEN d.outcome IN ('sent', 'defer') THEN o.{{.O.LastError}} ELSE d.error END,
    {{.O.LeaseExpiresAt}} = CASE WHEN d.outcome IN ('retry', 'defer', 'dead') THEN NULL ELSE o.{{.O.LeaseExpiresAt}} END,
    {{.O.ClaimToken}} = CASE WHEN d.outcome = 'dead' THEN NULL ELSE o.{{.O.ClaimToken}} END,
    {{if .O.Lanes}}{{.O.Destination}} = CASE WHEN o.{{.O.Destination}} = '' THEN COALESCE(d.dest, '') ELSE o.{{.O.Destination}} END,
    {{end}}{{.O.UpdatedAt}} = {{template "now" "@p2"}}
{{if .Ledger.Write -}}
OUTPUT inserted.{{.O.ID}},
    {{if .O.Lanes}}COALESCE(inserted.{{.O.OriginID}}, inserted.{{.O.ID}}), inserted.{{.O.Destination}},
    {{- else}}inserted.{{.O.ID}}, COALESCE(d.dest, ''),{{end}}
    COALESCE(d.attempt, 0), COALESCE(d.started_at, {{template "now" "@p2"}}), COALESCE(d.duration_ms, 0),
    CASE d.outcome WHEN 'retry' THEN 'failed' WHEN 'defer' THEN 'deferred' ELSE d.outcome END,
    NULLIF(d.class, ''), NULLIF(d.status, ''), NULLIF(d.answer, '')
INTO {{.Ledger.Table}} (outbox_id, message_id, destination, attempt, started_at, duration_ms, outcome,
    failure_class, status, answer)
{{end -}}
OUTPUT LOWER(CONVERT(NVARCHAR(36), inserted.{{.O.ID}}))
FROM {{.O.Table}} AS o WITH (UPDLOCK, ROWLOCK)
JOIN d ON o.{{.O.ID}} = d.id
WHERE {{template "fence_holds" args "T" .O "A" "o" "Now" "@p2"}}
