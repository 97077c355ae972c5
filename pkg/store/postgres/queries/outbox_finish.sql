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
WITH d AS MATERIALIZED (
    SELECT * FROM unnest($1::uuid[], $2::uuid[], $3::text[], $4::bigint[], $5::text[], $7::text[])
        AS d(id, token, outcome, delay_ms, error, dest)
), owned AS MATERIALIZED (
    {{template "fence" args "T" .O "A" "o" "Now" "$6"}}
)
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
RETURNING o.{{.O.ID}}::text
