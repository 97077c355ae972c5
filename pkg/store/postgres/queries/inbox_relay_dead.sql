-- Marks claimed push rows dead (a topic that rendered empty), fenced.
UPDATE {{.I.Table}} i
SET {{.I.State}} = 'dead',
    {{.I.LastError}} = d.error
FROM unnest($1::uuid[], $2::uuid[], $3::text[]) AS d(id, token, error)
WHERE i.{{.I.ID}} = d.id
  AND i.{{.I.State}} = 'processing'
  AND i.{{.I.ClaimToken}} = d.token
  AND i.{{.I.LeaseExpiresAt}} > now()
RETURNING i.{{.I.ID}}::text
