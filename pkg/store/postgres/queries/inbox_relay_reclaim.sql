-- Returns push rows whose relay lease expired to pending. Pull rows are
-- left to the pull claim, which takes over expired leases itself. Rows
-- are locked in id order and a row another statement holds is skipped,
-- as in the outbox reclaim step.
--
-- Each expired relay claim counts as an attempt of the row: a relay died
-- or stalled while it held the row. A row that no relay ever finishes (it
-- crashes or stalls every relay that takes it) would otherwise return to
-- pending for ever and hold back its aggregate; once its attempt reaches
-- $2 (inbox.relay.maxAttempts; 0 never) it goes dead with a reason.
WITH expired AS MATERIALIZED (
    SELECT {{.I.ID}} AS id
    FROM {{.I.Table}}
    WHERE {{.I.State}} = 'processing'
      AND {{.I.Consumption}} = 'push'
      AND {{.I.LeaseExpiresAt}} < {{template "now" "$1"}}
    ORDER BY {{.I.ID}}
    FOR UPDATE SKIP LOCKED
)
UPDATE {{.I.Table}} i
SET {{.I.State}} = CASE WHEN $2::int > 0 AND i.{{.I.Attempt}} + 1 >= $2::int THEN 'dead' ELSE 'pending' END,
    {{.I.Attempt}} = i.{{.I.Attempt}} + 1,
    {{.I.LastError}} = CASE WHEN $2::int > 0 AND i.{{.I.Attempt}} + 1 >= $2::int
        THEN 'The relay claim of this row expired ' || (i.{{.I.Attempt}} + 1) || ' times (inbox.relay.maxAttempts is ' || $2::int || '): no relay finished it, so it no longer holds back its aggregate'
        ELSE i.{{.I.LastError}} END,
    {{.I.ClaimToken}} = CASE WHEN $2::int > 0 AND i.{{.I.Attempt}} + 1 >= $2::int THEN NULL ELSE i.{{.I.ClaimToken}} END,
    {{.I.LeaseExpiresAt}} = NULL
FROM expired
WHERE i.{{.I.ID}} = expired.id
  AND i.{{.I.State}} = 'processing'
  AND i.{{.I.LeaseExpiresAt}} < {{template "now" "$1"}}
