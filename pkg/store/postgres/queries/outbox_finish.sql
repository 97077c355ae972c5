-- Writes the outcomes of many claimed rows in one statement. Each row is
-- fenced (partials.sql) on its id, the processing state, its claim token
-- and a live lease; a row missing from RETURNING lost its claim and keeps
-- the new owner's state. outcome: sent, retry (back to pending after
-- delay_ms, one attempt more), defer (back to pending after delay_ms with
-- attempt and last_error as they were: the destination could not take
-- the row, so no attempt was made) or dead. dest records the destination
-- of a row that was routed at its claim (one without a key); a row that
-- has one keeps it (an outbox without the lane columns records none). The fence locks the rows first, in id order, as the
-- renewal locks them: the writer and the renewal of one replica run on
-- two connections at once, and two statements that lock shared rows in
-- different orders deadlock.
--
-- With the delivery ledger written (Ledger.Write), the UPDATE becomes the
-- data-modifying CTE done, and the ledger CTE inserts one attempt for
-- each row it returns: the rows whose fence held, and no other, in the
-- same statement and transaction. $8 to $13 carry the attempt's facts
-- (attempt number, start in microseconds since the epoch with 0 for the
-- clock of $6, duration, failure class, status, answer; '' stores NULL).
-- The row gives the message id (its origin's for a fan-out delivery) and
-- the destination it now has. Without the ledger the statement is the
-- one of before.
WITH d AS MATERIALIZED (
    SELECT * FROM unnest($1::uuid[], $2::uuid[], $3::text[], $4::bigint[], $5::text[], $7::text[]{{if .Ledger.Write}},
        $8::int[], $9::bigint[], $10::int[], $11::text[], $12::text[], $13::text[]{{end}})
        AS d(id, token, outcome, delay_ms, error, dest{{if .Ledger.Write}}, attempt, started_us, duration_ms, class, status, answer{{end}})
), owned AS MATERIALIZED (
    {{template "fence" args "T" .O "A" "o" "Now" "$6"}}
){{if .Ledger.Write}}, done AS ({{end}}
UPDATE {{.O.Table}} o
SET {{.O.State}} = CASE WHEN d.outcome IN ('retry', 'defer') THEN 'pending' ELSE d.outcome END,
    {{.O.Attempt}} = CASE d.outcome WHEN 'retry' THEN o.{{.O.Attempt}} + 1 ELSE o.{{.O.Attempt}} END,
    {{.O.ScheduledAt}} = CASE WHEN d.outcome IN ('retry', 'defer') THEN {{template "now" "$6"}} + d.delay_ms * interval '1 millisecond'
                         ELSE o.{{.O.ScheduledAt}} END,
    {{.O.LastError}} = CASE WHEN d.outcome IN ('sent', 'defer') THEN o.{{.O.LastError}} ELSE d.error END,
    {{.O.LeaseExpiresAt}} = CASE WHEN d.outcome IN ('retry', 'defer', 'dead') THEN NULL ELSE o.{{.O.LeaseExpiresAt}} END,
    {{.O.ClaimToken}} = CASE WHEN d.outcome = 'dead' THEN NULL ELSE o.{{.O.ClaimToken}} END,
    {{if .O.Lanes}}{{.O.Destination}} = CASE WHEN o.{{.O.Destination}} = '' THEN COALESCE(d.dest, '') ELSE o.{{.O.Destination}} END,
    {{end}}{{.O.UpdatedAt}} = {{template "now" "$6"}}
FROM d, owned
WHERE o.{{.O.ID}} = owned.id
  AND d.id = owned.id
  AND {{template "fence_holds" args "T" .O "A" "o" "Now" "$6"}}
{{if .Ledger.Write -}}
RETURNING o.{{.O.ID}} AS id,
    {{if .O.Lanes}}COALESCE(o.{{.O.OriginID}}, o.{{.O.ID}}) AS message_id, o.{{.O.Destination}} AS destination,
    {{- else}}o.{{.O.ID}} AS message_id, COALESCE(d.dest, '') AS destination,{{end}}
    d.outcome, d.attempt, d.started_us, d.duration_ms, d.class, d.status, d.answer
), ledger AS (
    INSERT INTO {{.Ledger.Table}} (outbox_id, message_id, destination, attempt, started_at, duration_ms, outcome,
        failure_class, status, answer)
    SELECT id, message_id, destination, attempt,
        COALESCE(timestamptz 'epoch' + NULLIF(started_us, 0) * interval '1 microsecond', {{template "now" "$6"}}),
        duration_ms, CASE outcome WHEN 'retry' THEN 'failed' WHEN 'defer' THEN 'deferred' ELSE outcome END,
        NULLIF(class, ''), NULLIF(status, ''), NULLIF(answer, '')
    FROM done
)
SELECT id::text FROM done
{{- else -}}
RETURNING o.{{.O.ID}}::text
{{- end}}
