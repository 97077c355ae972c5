-- Returns processing rows whose lease expired to pending. The next claim
-- takes them under a new token; the old owner's fence then fails. The
-- rows are locked in id order and a row another statement holds is
-- skipped (the next step takes it if its lease is still expired), so the
-- step never waits on, nor deadlocks with, a renewal or an outcome write.
WITH expired AS MATERIALIZED (
    SELECT {{.O.ID}} AS id
    FROM {{.O.Table}}
    WHERE {{.O.State}} = 'processing'
      AND {{.O.LeaseExpiresAt}} < {{template "now" "$1"}}
    ORDER BY {{.O.ID}}
    FOR UPDATE SKIP LOCKED
)
UPDATE {{.O.Table}} o
SET {{.O.State}} = 'pending',
    {{.O.LeaseExpiresAt}} = NULL,
    {{.O.UpdatedAt}} = {{template "now" "$1"}}
FROM expired
WHERE o.{{.O.ID}} = expired.id
  AND o.{{.O.State}} = 'processing'
  AND o.{{.O.LeaseExpiresAt}} < {{template "now" "$1"}}
