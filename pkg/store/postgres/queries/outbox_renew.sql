-- Extends the leases still held, fenced like every terminal write.
UPDATE {{.O.Table}} o
SET {{.O.LeaseExpiresAt}} = now() + $3 * interval '1 millisecond'
FROM unnest($1::uuid[], $2::uuid[]) AS d(id, token)
WHERE o.{{.O.ID}} = d.id
  AND o.{{.O.State}} = 'processing'
  AND o.{{.O.ClaimToken}} = d.token
  AND o.{{.O.LeaseExpiresAt}} > now()
RETURNING o.{{.O.ID}}::text
