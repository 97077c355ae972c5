-- Marks claimed push rows dead (a topic that rendered empty), fenced. The
-- rows are locked in id order first, as the renewal locks them.
WITH d AS MATERIALIZED (
    SELECT * FROM unnest($1::uuid[], $2::uuid[], $3::text[]) AS d(id, token, error)
), owned AS MATERIALIZED (
    SELECT i.{{.I.ID}} AS id
    FROM {{.I.Table}} i
    JOIN d ON i.{{.I.ID}} = d.id
    WHERE i.{{.I.State}} = 'processing'
      AND i.{{.I.ClaimToken}} = d.token
      AND i.{{.I.LeaseExpiresAt}} > now()
    ORDER BY i.{{.I.ID}}
    FOR UPDATE OF i
)
UPDATE {{.I.Table}} i
SET {{.I.State}} = 'dead',
    {{.I.LastError}} = d.error
FROM d, owned
WHERE i.{{.I.ID}} = owned.id
  AND d.id = owned.id
  AND i.{{.I.State}} = 'processing'
  AND i.{{.I.ClaimToken}} = d.token
  AND i.{{.I.LeaseExpiresAt}} > now()
RETURNING i.{{.I.ID}}::text
