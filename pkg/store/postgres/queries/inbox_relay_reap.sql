-- Returns push rows whose relay lease expired to pending. Pull rows are
-- left to the pull claim, which takes over expired leases itself. Rows
-- are locked in id order and a row another statement holds is skipped,
-- as in the outbox reclaim step.
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
SET {{.I.State}} = 'pending',
    {{.I.LeaseExpiresAt}} = NULL
FROM expired
WHERE i.{{.I.ID}} = expired.id
  AND i.{{.I.State}} = 'processing'
  AND i.{{.I.LeaseExpiresAt}} < {{template "now" "$1"}}
