-- Extends the relay leases still held, fenced.
UPDATE {{.I.Table}} i
SET {{.I.LeaseExpiresAt}} = now() + $3 * interval '1 millisecond'
FROM unnest($1::uuid[], $2::uuid[]) AS d(id, token)
WHERE i.{{.I.ID}} = d.id
  AND i.{{.I.State}} = 'processing'
  AND i.{{.I.ClaimToken}} = d.token
  AND i.{{.I.LeaseExpiresAt}} > now()
RETURNING i.{{.I.ID}}::text
