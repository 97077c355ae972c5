-- Extends the leases still held, fenced (partials.sql) like every
-- terminal write. The fence locks the rows first, in id order, as the
-- outcome write locks them, so the two never deadlock.
WITH d AS MATERIALIZED (
    SELECT * FROM unnest($1::uuid[], $2::uuid[]) AS d(id, token)
), owned AS MATERIALIZED (
    {{template "fence" args "T" .O "A" "o" "Now" "$4"}}
)
UPDATE {{.O.Table}} o
SET {{.O.LeaseExpiresAt}} = {{template "lease_start" "$4"}} + $3 * interval '1 millisecond'
FROM d, owned
WHERE o.{{.O.ID}} = owned.id
  AND d.id = owned.id
  AND {{template "fence_holds" args "T" .O "A" "o" "Now" "$4"}}
RETURNING o.{{.O.ID}}::text
