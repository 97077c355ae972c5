-- Extends the relay leases still held, fenced (partials.sql). The fence
-- locks the rows first, in id order, as the forward and the dead mark
-- lock them: the renewal and a write of one relay run on two connections
-- at once, and two statements that lock shared rows in different orders
-- deadlock.
WITH d AS MATERIALIZED (
    SELECT * FROM unnest($1::uuid[], $2::uuid[]) AS d(id, token)
), owned AS MATERIALIZED (
    {{template "fence" args "T" .I "A" "i" "Now" "$4"}}
)
UPDATE {{.I.Table}} i
SET {{.I.LeaseExpiresAt}} = {{template "lease_start" "$4"}} + $3 * interval '1 millisecond'
FROM d, owned
WHERE i.{{.I.ID}} = owned.id
  AND d.id = owned.id
  AND {{template "fence_holds" args "T" .I "A" "i" "Now" "$4"}}
RETURNING i.{{.I.ID}}::text
