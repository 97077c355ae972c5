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
WITH d AS (
    SELECT id, token, outcome, delay_ms, error, dest
    FROM OPENJSON(@p1) WITH (id UNIQUEIDENTIFIER '$.id', token UNIQUEIDENTIFIER '$.token',
        outcome NVARCHAR(10) '$.outcome', delay_ms BIGINT '$.delay_ms', error NVARCHAR(MAX) '$.error',
        dest NVARCHAR(200) '$.dest')
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
OUTPUT LOWER(CONVERT(NVARCHAR(36), inserted.{{.O.ID}}))
FROM {{.O.Table}} AS o WITH (UPDLOCK, ROWLOCK)
JOIN d ON o.{{.O.ID}} = d.id
WHERE {{template "fence_holds" args "T" .O "A" "o" "Now" "@p2"}}
